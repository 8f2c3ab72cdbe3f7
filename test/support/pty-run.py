"""Runs a command on a pseudo-terminal (120 columns) and copies everything it draws to stdout.

Tests of umpire's live view use it: the CLI sees a real TTY on stdin/stdout/stderr, exactly as
in a user's terminal. Exits with the command's exit code. Standard library only.
"""
import fcntl
import os
import pty
import struct
import sys
import termios

pid, fd = pty.fork()
if pid == 0:
    # The size is set on the child's side before it starts, so its first look at `columns` sees it.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])

while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
