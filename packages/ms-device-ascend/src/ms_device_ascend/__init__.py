"""microspore's Ascend package: fp16 Cube numerics emulation on the CPU, an Ascend compatibility check, environment tools and rank tables"""

__version__ = "0.1.0"
