"""JSON payloads: written byte for byte as serde_json writes them, read as it reads them."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_guest.payload import PayloadError, as_u64, dumps, encode, get, loads, parse  # noqa


class DumpsTest(unittest.TestCase):
    def test_objects_are_compact_with_keys_sorted_at_every_level(self):
        self.assertEqual(dumps({"b": {"z": 1, "a": [True, None]}, "a": "x"}),
                         '{"a":"x","b":{"a":[true,null],"z":1}}')
        self.assertEqual(dumps([]), "[]")
        self.assertEqual(dumps({}), "{}")
        self.assertEqual(dumps((1, 2)), "[1,2]")

    def test_strings_keep_non_ascii_and_escape_what_serde_json_escapes(self):
        self.assertEqual(dumps("é→😀"), '"é→😀"')
        self.assertEqual(dumps('"\\\n\r\t\b\f\x01\x1f\x7f'),
                         '"\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\x7f"')

    def test_keys_sort_by_code_point_as_utf8_bytes_do(self):
        self.assertEqual(dumps({"é": 1, "z": 2, "Z": 3, "é2": 4}),
                         '{"Z":3,"z":2,"é":1,"é2":4}')

    def test_floats_are_written_as_ryu_writes_them(self):
        cases = [
            (1.0, "1.0"), (100.0, "100.0"), (0.1, "0.1"), (-2.5, "-2.5"), (0.0, "0.0"),
            (-0.0, "-0.0"), (1e15, "1000000000000000.0"), (1e16, "1e16"), (1.5e16, "1.5e16"),
            (1e-5, "0.00001"), (1.25e-5, "0.0000125"), (1e-6, "1e-6"), (1.5e-7, "1.5e-7"),
            (1e300, "1e300"), (1700000000.123, "1700000000.123"),
            (123456789012345680000.0, "1.2345678901234568e20"), (float("inf"), "null"),
            (float("nan"), "null"),
        ]
        for value, text in cases:
            self.assertEqual(dumps(value), text, value)

    def test_integers_and_booleans(self):
        self.assertEqual(dumps([0, -1, 2**64 - 1, True, False]),
                         "[0,-1,18446744073709551615,true,false]")

    def test_what_is_not_json_is_refused(self):
        with self.assertRaises(TypeError):
            dumps({1: "a"})
        with self.assertRaises(TypeError):
            dumps(object())


class ReadTest(unittest.TestCase):
    def test_loads_names_what_is_not_json(self):
        with self.assertRaisesRegex(PayloadError, "^the order is not JSON: "):
            loads("{", "the order")
        self.assertEqual(loads('{"a":[1,2.5]}'), {"a": [1, 2.5]})

    def test_loads_refuses_what_serde_json_refuses(self):
        for text in ("NaN", "Infinity", "-Infinity", "1e400"):
            with self.assertRaises(PayloadError):
                loads(text)
        self.assertEqual(dumps(loads("18446744073709551616")), "1.8446744073709552e19")

    def test_parse_falls_back_to_the_text(self):
        self.assertEqual(parse('{"a":1}'), {"a": 1})
        self.assertEqual(parse("not json"), "not json")
        self.assertEqual(parse("NaN"), "NaN")
        self.assertEqual(dumps(parse("TRK-1")), '"TRK-1"')

    def test_get_indexes_as_serde_json_does(self):
        doc = {"order": {"id": "o", "items": ["a"]}, "n": 3}
        self.assertEqual(get(doc, "order", "id"), "o")
        self.assertEqual(get(doc, "order", "items", 0), "a")
        self.assertIsNone(get(doc, "missing", "id"))
        self.assertIsNone(get(doc, "n", "id"))
        self.assertIsNone(get(doc, "order", "items", 5))
        self.assertIsNone(get("text", "id"))

    def test_as_u64(self):
        self.assertEqual(as_u64(5), 5)
        for value in (-1, 2**64, 5.0, True, "5", None):
            self.assertIsNone(as_u64(value), value)

    def test_encode_keeps_strings_and_encodes_the_rest(self):
        self.assertEqual(encode("raw"), "raw")
        self.assertIsNone(encode(None))
        self.assertEqual(encode({"b": 1, "a": 2}), '{"a":2,"b":1}')
        self.assertEqual(encode(3), "3")


if __name__ == "__main__":
    unittest.main()


class PayloadRuleTest(unittest.TestCase):
    """The rule every SDK follows, from the table they all read (guest-sdk/payloads.json)."""

    def test_every_case_of_the_shared_table(self):
        import json

        table = Path(__file__).resolve().parents[2] / "payloads.json"
        for case in json.loads(table.read_text(encoding="utf-8"))["cases"]:
            with self.subTest(case["name"]):
                self.assertEqual(encode(case["value"]), case["payload"])
