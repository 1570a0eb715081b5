"""What a component records of its inputs, so that a build from the same sources keeps the file
that is there (weft_componentize/_inputs.py)."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weft_componentize import _inputs  # noqa: E402

#: The smallest component: its magic and version, then one custom section.
EMPTY = b"\0asm\x0d\0\x01\0" + b"\0\x04\x03abc"


class BuildInputs(unittest.TestCase):
    def test_a_component_records_its_inputs_and_reads_them_back(self):
        self.assertIsNone(_inputs.recorded(EMPTY))
        recorded = _inputs.record(EMPTY, "d" * 200)
        self.assertTrue(recorded.startswith(EMPTY))
        self.assertEqual(_inputs.recorded(recorded), "d" * 200)

    def test_the_digest_follows_the_modules_and_nothing_else(self):
        with tempfile.TemporaryDirectory() as root:
            root = Path(root)
            (root / "app.py").write_text("x = 1\n")
            (root / "notes.txt").write_text("not a module\n")
            (root / ".venv").mkdir()
            (root / ".venv" / "site.py").write_text("ignored\n")

            def digest():
                return _inputs.digest("decider", "entry", [root], ["0.25.1"])
            first = digest()
            (root / "notes.txt").write_text("changed\n")
            (root / ".venv" / "site.py").write_text("changed\n")
            self.assertEqual(digest(), first)
            (root / "app.py").write_text("x = 2\n")
            self.assertNotEqual(digest(), first)


if __name__ == "__main__":
    unittest.main()
