"""A unittest base class for tests that work in a scratch directory."""
import os
import shutil
import tempfile
import unittest


class ScratchDirTest(unittest.TestCase):
    """self.dir: a fresh temporary directory per test, removed after it."""

    prefix = "gradlint-test-"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text):
        """Writes text to dir/name (creating directories); returns the path."""
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def read(self, name):
        with open(os.path.join(self.dir, name), encoding="utf-8") as f:
            return f.read()
