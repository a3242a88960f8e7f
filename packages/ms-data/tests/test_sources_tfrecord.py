"""TFRecordDataset, the TFRecord framing and the Example wire format. The expected rows
were printed by MindSpore 2.10 reading the same files (written here)."""

import gzip
import json

import numpy as np
import pytest

import ms_data as ds
from ms_data.sources._example_proto import encode_example, parse_example
from ms_data.sources._tfrecord_file import crc32c, read_tfrecords, write_tfrecords


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord"
    write_tfrecords(a, [encode_example({"image": [b"\x01\x02\x03" * (i + 1)], "label": [i],
                                        "score": [0.5 * i, 1.0], "name": [f"n{i}"]})
                        for i in range(3)])
    write_tfrecords(b, [encode_example({"image": [b"zz"], "label": [10 + i],
                                        "score": [2.5, 3.0], "name": ["m"]}) for i in range(2)])
    return [str(a), str(b)]


def rows(d):
    return list(d.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_columns_dtypes_and_reader_order(files):
    d = ds.TFRecordDataset(files, shuffle=False, num_parallel_workers=2)
    assert d.get_col_names() == ["image", "label", "name", "score"]
    assert d.output_types() == [np.uint8, np.int64, np.uint8, np.float32]
    got = rows(d)
    assert [int(r["label"][0]) for r in got] == [0, 10, 1, 11, 2]
    r = got[2]
    assert r["image"].tolist() == [1, 2, 3, 1, 2, 3] and r["label"].shape == (1,)
    assert r["score"].dtype == np.float32 and r["score"].tolist() == [0.5, 1.0]
    assert bytes(r["name"]) == b"n1"


def test_columns_list_schema_samples_and_shards(files, tmp_path):
    d = ds.TFRecordDataset(files, shuffle=False, columns_list=["label", "score"])
    assert d.get_col_names() == ["label", "score"]
    s = ds.Schema()
    s.add_column("label", de_type="int32", shape=[1])
    s.add_column("score", de_type="float32", shape=[2, 1])
    got = rows(ds.TFRecordDataset(files, schema=s, shuffle=False))
    assert got[0]["label"].dtype == np.int32 and got[0]["score"].shape == (2, 1)
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"columns": {"label": {"type": "int64", "shape": [1]},
                                            "image": {"type": "uint8", "rank": 1}}}))
    assert ds.TFRecordDataset(files, schema=str(path)).get_col_names() == ["image", "label"]
    ns = rows(ds.TFRecordDataset(files, shuffle=False, num_samples=3, num_parallel_workers=1))
    assert [int(r["label"][0]) for r in ns] == [0, 1, 2]
    shard = rows(ds.TFRecordDataset(files, shuffle=False, num_shards=2, shard_id=1))
    assert [int(r["label"][0]) for r in shard] == [10, 11]
    equal = [rows(ds.TFRecordDataset(files, shuffle=False, num_shards=2, shard_id=i,
                                     shard_equal_rows=True)) for i in range(2)]
    assert [len(e) for e in equal] == [3, 3]
    assert sorted(int(r["label"][0]) for r in rows(ds.TFRecordDataset(files))) == \
        [0, 1, 2, 10, 11]


def test_strings_and_gzip(tmp_path):
    path = tmp_path / "s.tfrecord.gz"
    raw = tmp_path / "raw"
    write_tfrecords(raw, [encode_example({"words": ["héllo", "w"]})])
    path.write_bytes(gzip.compress(raw.read_bytes()))
    s = ds.Schema()
    s.add_column("words", de_type="string")
    got = rows(ds.TFRecordDataset(str(path), schema=s, compression_type="GZIP"))
    assert got[0]["words"].tolist() == ["héllo", "w"]
    with pytest.raises(Exception, match="2 byte strings"):
        rows(ds.TFRecordDataset(str(path), compression_type="GZIP"))
    with pytest.raises(Exception, match="not GZIP"):
        rows(ds.TFRecordDataset(str(raw), compression_type="GZIP"))


def test_corrupt_files_are_named(files, tmp_path):
    data = bytearray(open(files[0], "rb").read())
    bad = tmp_path / "bad.tfrecord"
    data[20] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(Exception, match="bad.tfrecord.*data CRC"):
        rows(ds.TFRecordDataset(str(bad)))
    bad.write_bytes(open(files[0], "rb").read()[:-3])
    with pytest.raises(Exception, match="bad.tfrecord.*truncated"):
        rows(ds.TFRecordDataset(str(bad)))
    with pytest.raises(ValueError, match="did not match"):
        ds.TFRecordDataset(str(tmp_path / "none.tfrecord"))
    with pytest.raises(ValueError, match="compression_type"):
        ds.TFRecordDataset(files, compression_type="LZ4")
    with pytest.raises(ValueError, match="columns_list"):
        rows(ds.TFRecordDataset(files, columns_list=["nope"]))


def test_crc32c_known_value_and_framing_round_trip(tmp_path):
    assert crc32c(b"123456789") == 0xE3069283
    write_tfrecords(tmp_path / "r", [b"", b"x" * 300])
    assert [bytes(r) for r in read_tfrecords(tmp_path / "r")] == [b"", b"x" * 300]


def test_example_wire_format_against_protobuf():
    pb = pytest.importorskip("google.protobuf.descriptor_pb2")
    from google.protobuf import descriptor_pool, message_factory

    F = pb.FieldDescriptorProto
    fd = pb.FileDescriptorProto(name="ms_data_test_example.proto", package="t",
                                syntax="proto3")
    for name, typ in (("BytesList", F.TYPE_BYTES), ("FloatList", F.TYPE_FLOAT),
                      ("Int64List", F.TYPE_INT64)):
        fd.message_type.add(name=name).field.add(name="value", number=1, type=typ,
                                                 label=F.LABEL_REPEATED)
    feat = fd.message_type.add(name="Feature")
    feat.oneof_decl.add(name="kind")
    for i, name in enumerate(("bytes_list", "float_list", "int64_list")):
        feat.field.add(name=name, number=i + 1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                       type_name=".t." + ("BytesList", "FloatList", "Int64List")[i],
                       oneof_index=0)
    feats = fd.message_type.add(name="Features")
    feats.field.add(name="feature", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                    type_name=".t.Features.FeatureEntry")
    entry = feats.nested_type.add(name="FeatureEntry")
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".t.Feature")
    entry.options.map_entry = True
    fd.message_type.add(name="Example").field.add(
        name="features", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
        type_name=".t.Features")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    Example = message_factory.GetMessageClass(pool.FindMessageTypeByName("t.Example"))

    ours = Example.FromString(encode_example({"n": [-3, 1 << 40], "x": [0.25], "s": [b"q"]}))
    assert list(ours.features.feature["n"].int64_list.value) == [-3, 1 << 40]
    assert list(ours.features.feature["x"].float_list.value) == [0.25]
    theirs = Example()
    theirs.features.feature["a"].int64_list.value.extend([1, -2])
    theirs.features.feature["f"].float_list.value.extend([0.5, -1.0])
    theirs.features.feature["b"].bytes_list.value.append(b"\x00\xff")
    assert parse_example(theirs.SerializeToString()) == {
        "a": ("int64", [1, -2]), "f": ("float", [0.5, -1.0]), "b": ("bytes", [b"\x00\xff"])}
