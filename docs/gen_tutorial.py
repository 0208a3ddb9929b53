"""Regenerate the output blocks of docs/tutorial.md by running the tutorial.

    python docs/gen_tutorial.py               run it, rewrite docs/tutorial.md
    python docs/gen_tutorial.py --stdout      run it, print the tutorial instead
    python docs/gen_tutorial.py --keep DIR    run it in DIR/run-1 (run-2... if the dice call
                                              for another run) and leave it, for a look
    python docs/gen_tutorial.py --subprocess  run the installed ``pbem`` program for each
                                              command (slower; the default runs pbem's
                                              click command in this process)

The tutorial is its own script.  Every ```console block holds commands, each
after a prompt -- ``ann$ `` (in Ann's folder, with her ``PBEM_HOME``),
``bob$ `` (Bob's) or ``$ `` (the folder that holds both) -- followed by what
it printed.  A command may go on over the lines of a here-document
(``cat > f <<'TOML'`` ... ``TOML``).  This script runs every command, in
order, in a fresh temporary folder laid out as the tutorial says (``ann/``
and ``bob/``, each with ``home/`` as ``PBEM_HOME``; the passphrase comes from
``PBEM_PASSPHRASE``), and writes what each printed under it.  The prose and
every other block are left as they are: a command added to a console block
is run, and its output appears, on the next run.

What is not the same from one run to the next is kept readable: the temporary
folder is shown as /tmp/tut, and the SMTP server, which listens on a free
port, as 127.0.0.1:8025 (the port the tutorial's commands name; they are
run with the free port instead).  Fingerprints, game ids, dice and ages
differ per run; the tutorial says so.

Dice can change more than numbers: Ambon's landing dice decide whether a
landing succeeds, is delayed or fights, and so which events follow and what
the next orders template lists.  A block whose output the dice decide is
marked by the line ``<!-- dice-decided ... -->`` above it (invisible
once rendered); the test compares such a block's frame, not every event.
The prose around those blocks describes a run in which the Japanese may
move after the landings, so a run that does not print every text of
:data:`SHOWN_RUN_PRINTS` is done again (up to :data:`ATTEMPTS` runs).

``python -m aiosmtpd ...`` in a console block starts that server in the
background (it runs in the foreground in a terminal of its own) and waits
until it listens; it is stopped at the end.  It needs aiosmtpd (in the test
extras: ``pip install -e '.[test]'``).

Every command must succeed (exit status 0): if one fails, nothing is
written and the failure is shown.  tests/test_docs_tutorial.py runs the same
flow (:func:`run`) and compares each output with the tutorial's, modulo what
changes per run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE / "tutorial.md"

SHOWN_ROOT = "/tmp/tut"  # how the tutorial names the folder that holds ann/ and bob/
SHOWN_PORT = 8025  # the SMTP port the tutorial's commands name
PASSPHRASE = "tutorial passphrase"
WIDTH = 100  # terminal columns: rich's tables and panels are drawn this wide
SERVER_TIMEOUT = 10.0  # seconds for the SMTP server to listen
COMMAND_TIMEOUT = 60.0  # seconds for one shell command

# The run shown must print these texts (the prose after the landing dice speaks of
# moves); a run whose dice keep one out is done again, up to ATTEMPTS runs in all.
SHOWN_RUN_PRINTS = ("## --- Example orders for this position",)
ATTEMPTS = 8

PROMPT = re.compile(r"^(?P<who>ann|bob|)\$ (?P<command>.*)$")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<word>\w+)\1")
DICE_DECIDED = re.compile(r"^<!-- dice-decided\b.*-->$")
FENCE = "```"


# --------------------------------------------------------------------------- the tutorial as a script


@dataclass
class Step:
    """One command of a console block and the output the tutorial shows for it."""

    who: str  # "ann", "bob" or "" (the folder holding both)
    command: str  # as shown; the lines of a here-document included
    output: str  # as shown, no trailing newline

    @property
    def prompt(self) -> str:
        return f"{self.who}$ "

    @property
    def shown(self) -> str:
        """The command as the tutorial shows it, prompt included."""
        return self.prompt + self.command


@dataclass
class Block:
    """A ```console block: its opening line and its steps."""

    fence: str  # the opening line, e.g. "```console"
    steps: list[Step] = field(default_factory=list)
    line: int = 0  # 1-based line of the opening fence in the tutorial
    dice_decided: bool = False  # marked <!-- dice-decided ... --> (the last prose line above it)

    def render(self, outputs: list[str] | None = None) -> str:
        parts = []
        for i, step in enumerate(self.steps):
            out = step.output if outputs is None else outputs[i]
            parts.append(step.shown + ("\n" + out if out else ""))
        return self.fence + "\n" + "\n\n".join(parts) + "\n" + FENCE


def parse(text: str) -> list[str | Block]:
    """The tutorial as prose (str) and console blocks, in order; joined back
    with :func:`render` they give the text again."""
    pieces: list[str | Block] = []
    prose: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not (line.startswith(FENCE + "console") and line[len(FENCE):].split()[0] == "console"):
            prose.append(line)
            i += 1
            continue
        above = [p for p in prose if p.strip()]
        marked = bool(above) and bool(DICE_DECIDED.match(above[-1]))
        if prose:
            pieces.append("\n".join(prose))
            prose = []
        block = Block(fence=line, line=i + 1, dice_decided=marked)
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i] != FENCE:
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"tutorial line {block.line}: the console block is not closed")
        i += 1  # the closing fence
        block.steps = _steps(body, block.line)
        pieces.append(block)
    if prose:
        pieces.append("\n".join(prose))
    return pieces


def _steps(body: list[str], first_line: int) -> list[Step]:
    steps: list[Step] = []
    j = 0
    while j < len(body):
        m = PROMPT.match(body[j])
        if not m:
            if body[j].strip() and not steps:
                raise ValueError(f"tutorial line {first_line + 1 + j}: a console block must begin with a prompt "
                                 f"(ann$, bob$ or $): {body[j]!r}")
            j += 1
            continue
        command = [m["command"]]
        j += 1
        heredoc = HEREDOC.search(m["command"])
        if heredoc:
            while j < len(body) and body[j] != heredoc["word"]:
                command.append(body[j])
                j += 1
            if j == len(body):
                raise ValueError(f"tutorial line {first_line + 1 + j}: here-document {heredoc['word']} not closed")
            command.append(body[j])
            j += 1
        output: list[str] = []
        while j < len(body) and not PROMPT.match(body[j]):
            output.append(body[j])
            j += 1
        while output and not output[-1].strip():
            output.pop()
        steps.append(Step(m["who"], "\n".join(command), "\n".join(output)))
    return steps


def blocks(text: str) -> list[Block]:
    return [piece for piece in parse(text) if isinstance(piece, Block)]


def render(pieces: list[str | Block], outputs: list[list[str]] | None = None) -> str:
    """The tutorial again, each console block with ``outputs`` (per block,
    per step) or, without them, with the outputs it shows."""
    parts = []
    k = 0
    for piece in pieces:
        if isinstance(piece, Block):
            parts.append(piece.render(None if outputs is None else outputs[k]))
            k += 1
        else:
            parts.append(piece)
    return "\n".join(parts)


# --------------------------------------------------------------------------- running it


@dataclass
class Result:
    step: Step
    output: str  # as the tutorial shows it: /tmp/tut for the folder, 8025 for the port
    exit_code: int
    seconds: float


class StepFailed(RuntimeError):
    """A command of the tutorial failed; ``results`` holds every step run, this one last."""

    def __init__(self, result: Result, block: Block, results: list[list[Result]] | None = None):
        self.result = result
        self.results = results or []
        super().__init__(f"tutorial line {block.line}: {result.step.shown!r} exited with {result.exit_code}:\n"
                         f"{result.output}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Runner:
    """Runs steps in ``root`` as the tutorial lays it out."""

    def __init__(self, root: Path, *, in_process: bool = True):
        self.root = Path(root)
        self.in_process = in_process
        self.port = free_port()
        self.server: subprocess.Popen | None = None
        self.server_log = self.root / "smtpd.log"
        for who in ("ann", "bob"):
            (self.root / who).mkdir(parents=True, exist_ok=True)

    # -- the environment of each player

    def cwd(self, who: str) -> Path:
        return self.root / who if who else self.root

    def env(self, who: str) -> dict[str, str | None]:
        env: dict[str, str | None] = {
            "PBEM_HOME": str(self.root / who / "home") if who else None,
            "PBEM_PASSPHRASE": PASSPHRASE,
            "PBEM_SMTP_PASSWORD": None,
            "PBEM_GAMES": None,
            "COLUMNS": str(WIDTH),
            "LINES": "50",
            "FORCE_COLOR": None,
            "NO_COLOR": "1",
            "TERM": "dumb",
            "PYTHONIOENCODING": "utf-8",
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        }
        return env

    def real(self, command: str) -> str:
        """The command as run: the SMTP server's real port for the one shown."""
        return re.sub(rf"\b{SHOWN_PORT}\b", str(self.port), command)

    def shown(self, output: str) -> str:
        """The output as the tutorial shows it -- and a terminal: CRLF line
        ends (an email's, printed by sed) are plain ones."""
        output = output.replace("\r\n", "\n")
        for root in {str(self.root), os.path.realpath(self.root)}:
            output = output.replace(root, SHOWN_ROOT)
        return output.replace(f"127.0.0.1:{self.port}", f"127.0.0.1:{SHOWN_PORT}")

    # -- one step

    def run(self, step: Step) -> Result:
        start = time.monotonic()
        command = self.real(step.command)
        if "-m aiosmtpd" in command:
            code, output = self._start_server(step.who, command)
        else:
            args = self._pbem_args(command) if self.in_process else None
            if args is not None:
                code, output = self._pbem(step.who, *args)
            else:
                code, output = self._shell(step.who, command)
        return Result(step, self.shown(output).rstrip("\n"), code, time.monotonic() - start)

    def _pbem_args(self, command: str) -> tuple[list[str], str | None] | None:
        """``(arguments, file for >)`` of a plain ``pbem ... [> FILE]``, else None."""
        if "\n" in command or any(c in command for c in "|;&<`$*?(){}~"):
            return None  # for the shell
        words = shlex.split(command)
        if not words or words[0] != "pbem":
            return None
        redirect = None
        if ">" in words:
            at = words.index(">")
            if at != len(words) - 2:
                return None
            redirect = words[-1]
            words = words[:at]
        if any(">" in w for w in words):
            return None
        return words[1:], redirect

    def _pbem(self, who: str, args: list[str], redirect: str | None) -> tuple[int, str]:
        from click.testing import CliRunner

        from pbem.cli import main

        before = os.getcwd()
        os.chdir(self.cwd(who))
        try:
            result = CliRunner().invoke(main, args, env=self.env(who), prog_name="pbem")
        finally:
            os.chdir(before)
        output = result.output  # what a terminal shows: stdout and stderr as written
        if redirect is not None:
            (self.cwd(who) / redirect).write_text(result.stdout, encoding="utf-8")
            try:
                output = result.stderr
            except ValueError:  # click 8.1 mixes stderr into stdout
                output = ""
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            import traceback

            output += "".join(traceback.format_exception(result.exception))
        return result.exit_code, output

    def _shell(self, who: str, command: str) -> tuple[int, str]:
        env = {k: v for k, v in {**os.environ, **self.env(who)}.items() if v is not None}
        done = subprocess.run(["bash", "-c", command], cwd=self.cwd(who), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT, check=False)
        return done.returncode, done.stdout.decode("utf-8", "replace")

    def _start_server(self, who: str, command: str) -> tuple[int, str]:
        """Start the SMTP server the command names, in the background, and
        wait until it listens (it prints nothing while it runs)."""
        if self.server is not None:
            return 2, "an SMTP server is already running"
        words = shlex.split(command)
        if words[0] in ("python", "python3"):
            words[0] = sys.executable
        env = {k: v for k, v in {**os.environ, **self.env(who)}.items() if v is not None}
        log = open(self.server_log, "wb")  # noqa: SIM115 - kept open while the server runs
        self.server = subprocess.Popen(words, cwd=self.cwd(who), env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + SERVER_TIMEOUT
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                code = self.server.returncode or 1
                self.server = None
                return code, self.server_log.read_text(errors="replace")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return 0, ""
            except OSError:
                time.sleep(0.05)
        self.stop()
        return 1, f"the SMTP server did not listen on port {self.port} within {SERVER_TIMEOUT:.0f} s"

    def stop(self) -> None:
        if self.server is not None:
            self.server.terminate()
            try:
                self.server.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
            self.server = None


def needs_smtp_server(step: Step) -> bool:
    return "-m aiosmtpd" in step.command


def smtp_server_available() -> bool:
    """Whether aiosmtpd, which the tutorial's SMTP server is, can be imported."""
    import importlib.util

    return importlib.util.find_spec("aiosmtpd") is not None


def run(text: str, root: Path, *, in_process: bool = True, stop_before_server: bool = False,
        check: bool = True) -> list[list[Result]]:
    """Run every command of the tutorial ``text`` in ``root``; the results per
    console block.  With ``check``, a command that fails raises
    :class:`StepFailed`.  With ``stop_before_server`` (no aiosmtpd), the run
    ends before the step that starts the SMTP server."""
    runner = Runner(root, in_process=in_process)
    results: list[list[Result]] = []
    try:
        for block in blocks(text):
            done: list[Result] = []
            results.append(done)
            for step in block.steps:
                if stop_before_server and needs_smtp_server(step):
                    return results
                result = runner.run(step)
                done.append(result)
                if check and result.exit_code != 0:
                    raise StepFailed(result, block, results)
    finally:
        runner.stop()
    return results


def regenerate(text: str, root: Path, *, in_process: bool = True) -> str:
    """The tutorial with every output block as a run printed it: the first of
    up to :data:`ATTEMPTS` runs that prints every text of
    :data:`SHOWN_RUN_PRINTS` (each run in a fresh folder under ``root``)."""
    if not smtp_server_available():
        raise RuntimeError("the tutorial's SMTP part needs aiosmtpd: pip install aiosmtpd (or pip install -e '.[test]')")
    for attempt in range(1, ATTEMPTS + 1):
        results = run(text, Path(root) / f"run-{attempt}", in_process=in_process)
        printed = "\n".join(r.output for block in results for r in block)
        missing = [want for want in SHOWN_RUN_PRINTS if want not in printed]
        if not missing:
            return render(parse(text), [[r.output for r in block] for block in results])
        print(f"gen_tutorial: run {attempt}: the dice kept out {missing[0]!r}; running again", file=sys.stderr)
    raise RuntimeError(f"no run in {ATTEMPTS} printed every text of SHOWN_RUN_PRINTS")


# --------------------------------------------------------------------------- command line


def main(argv: list[str]) -> int:
    in_process = "--subprocess" not in argv
    text = TARGET.read_text(encoding="utf-8")
    keep = None
    if "--keep" in argv:
        if argv.index("--keep") + 1 == len(argv):
            print("--keep needs a folder", file=sys.stderr)
            return 2
        keep = argv[argv.index("--keep") + 1]
    if keep:
        root = Path(keep).resolve()
        if root.exists() and any(root.iterdir()):
            print(f"{root} is not empty", file=sys.stderr)
            return 2
        root.mkdir(parents=True, exist_ok=True)
    else:
        root = Path(tempfile.mkdtemp(prefix="pbem-tutorial-"))
    try:
        new = regenerate(text, root, in_process=in_process)
    except (StepFailed, RuntimeError, ValueError) as err:
        print(f"gen_tutorial: {err}", file=sys.stderr)
        return 1
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    if "--stdout" in argv:
        sys.stdout.write(new)
        return 0
    TARGET.write_text(new, encoding="utf-8")
    print(f"wrote {TARGET}" + (f" (the run is in {root})" if keep else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
