"""A stand-in OCR program for the command engine tests: ``fake_ocr.py MODE [ARGS...]``."""

import os
import subprocess
import sys
import time
from pathlib import Path

mode, args = sys.argv[1], sys.argv[2:]
if mode == "echo":  # each argument on its own line, exactly as received
    print("\n".join(args))
elif mode == "env":
    print(os.environ.get(args[0], "<unset>"))
elif mode == "cwd":
    print(os.getcwd())
elif mode == "fail":
    sys.stderr.write("x" * 5000 + "\nmodel file missing\n")
    sys.exit(3)
elif mode == "badutf8":
    sys.stdout.buffer.write(b"caf\xe9\n")
elif mode == "hang":  # leaves a grandchild behind, as a shell wrapper would
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    Path(args[0]).write_text(str(child.pid))
    time.sleep(60)
else:
    sys.exit(f"unknown mode {mode}")
