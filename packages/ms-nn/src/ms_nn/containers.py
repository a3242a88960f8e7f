"""Containers of cells: ``SequentialCell`` (a pipeline), ``CellList`` and ``CellDict``.

Children are registered under their index ("0", "1", ...) or key, so Parameters get
MindSpore's names ("features.0.weight"). After an insertion or deletion the indices are
renumbered and the Parameters renamed to match. A slice shares the cells without
renaming them: their names stay those of the container they belong to.
"""

from __future__ import annotations

from collections import OrderedDict

from ms_nn.cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


def _check_cell(owner: str, cell) -> Cell:
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{owner}', each cell must be a Cell, got {type(cell).__name__}")
    return cell


class _IndexedCells(Cell):
    """Shared behaviour of SequentialCell and CellList: children keyed by position."""

    def _check_index(self, index: int) -> int:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"For '{self.cls_name}', the index must be an int or a slice, got "
                            f"{type(index).__name__}")
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"For '{self.cls_name}', the index must be in range [{-n}, {n}), "
                             f"got {index}")
        return index + n if index < 0 else index

    def _renumber(self, cells: list) -> None:
        """Store ``cells`` under keys "0".."n-1", renaming Parameters of moved cells."""
        old = list(self._cells.values())
        self._cells.clear()
        for i, cell in enumerate(cells):
            if i < len(old) and old[i] is cell:
                self._cells[str(i)] = cell
            else:
                self._register_child(str(i), cell)

    def _sliced(self, cells) -> Cell:
        out = type(self).__new__(type(self))
        Cell.__init__(out)
        for i, cell in enumerate(cells):
            out.insert_child_to_cell(str(i), cell)
        return out

    def __getitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return self._sliced(cells[index])
        return cells[self._check_index(index)]

    def __setitem__(self, index, cell) -> None:
        _check_cell(self.cls_name, cell)
        i = self._check_index(index)
        self._register_child(list(self._cells)[i], cell)

    def __delitem__(self, index) -> None:
        cells = list(self._cells.values())
        if isinstance(index, slice):
            del cells[index]
        else:
            del cells[self._check_index(index)]
        self._renumber(cells)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def append(self, cell: Cell):
        """Add ``cell`` at the end."""
        self._register_child(str(len(self._cells)), _check_cell(self.cls_name, cell))
        return self

    def insert(self, index: int, cell: Cell) -> None:
        """Insert ``cell`` before position ``index`` (negative counts from the end)."""
        _check_cell(self.cls_name, cell)
        cells = list(self._cells.values())
        cells.insert(index, cell)
        self._renumber(cells)


class SequentialCell(_IndexedCells):
    """Cells called one after the other, each on the previous one's output.

    Args:
        *args: cells, or one list of cells, or one OrderedDict from name to cell (the
            names then key the children and the Parameter names: "conv.weight").

    >>> SequentialCell([Cell(), Cell()])  # doctest: +SKIP
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, cell in args[0].items():
                _check_cell(self.cls_name, cell)
                if not isinstance(key, str) or "." in key:
                    raise KeyError(f"For '{self.cls_name}', keys must be str without '.', "
                                   f"got {key!r}")
                self._register_child(key, cell)
            return
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        for i, cell in enumerate(cells):
            self._register_child(str(i), _check_cell(self.cls_name, cell))

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_IndexedCells):
    """A list of cells that registers them (so their Parameters are found). It is not
    callable: iterate over it in ``construct``.

    Args:
        args: an iterable of cells.
    """

    def __init__(self, args=None, **kwargs):
        super().__init__(**kwargs)
        if args is not None:
            self.extend(args)

    def extend(self, cells):
        """Add each cell of ``cells`` at the end."""
        for cell in cells:
            self.append(cell)
        return self

    def construct(self, *inputs):
        raise NotImplementedError("CellList is not callable; iterate over its cells in the "
                                  "construct of the cell that owns it")


class CellDict(Cell):
    """A dict of cells keyed by name, registering each (Parameter names "blocks.a.weight").

    Args:
        args: a mapping or an iterable of ``(key, cell)`` pairs.
    """

    def __init__(self, args=None, **kwargs):
        super().__init__(**kwargs)
        if args is not None:
            self.update(args)

    def _check_key(self, key) -> str:
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', key must be a str, got {type(key).__name__}")
        if "." in key:
            raise KeyError(f"For 'CellDict', key can not contain '.', got {key!r}")
        if key in self.__dict__ or key in self._params:
            raise KeyError(f"For 'CellDict', key {key!r} is already an attribute of the cell")
        return key

    def __getitem__(self, key: str) -> Cell:
        if key not in self._cells:
            raise KeyError(f"CellDict has no cell {key!r}; keys: {list(self._cells)}")
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        self._register_child(self._check_key(key), _check_cell("CellDict", cell))

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells))

    def __contains__(self, key) -> bool:
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def clear(self) -> None:
        self._cells.clear()

    def pop(self, key: str) -> Cell:
        cell = self[key]
        del self._cells[key]
        return cell

    def update(self, cells) -> None:
        """Add or replace cells from a mapping or an iterable of ``(key, cell)`` pairs."""
        items = cells.items() if hasattr(cells, "items") else cells
        for pair in items:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError("CellDict.update: expected a mapping or (key, cell) pairs, got "
                                f"an element of type {type(pair).__name__}")
            self[pair[0]] = pair[1]

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is not callable; look its cells up by key in "
                                  "the construct of the cell that owns it")
