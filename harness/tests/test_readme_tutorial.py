"""The README's "Write, run, record and diff a scenario" tutorial, followed literally in a copy
of the repository (issue 17 item 10): its commands succeed, its scenario stays out of the
default suite (the test command stays green with the tutorial's scenario and golden in
place), `tools/golden record` takes only the latest run of the output folder, and the
command the README gives to see the new golden shows it."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from satasim.golden import main
from satasim.results import binary, need_tool
from synthetic_trace import rec, write_run

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Write, run, record and diff a scenario"
# Commands of the tutorial this test does not run, and why.
NOT_RUN = {
    "gtkwave": "a GUI viewer",
    "satasim.testplan": "reads out/suite, the main job's output (tested by test_testplan.py)",
}


def tutorial_blocks(readme: str) -> list[str]:
    """The shell blocks of the tutorial section, in order (indented code in the list items)."""
    start = readme.index(SECTION)
    end = readme.find("\n## ", start + len(SECTION))
    lines = readme[start:end if end >= 0 else None].splitlines()
    blocks, cur = [], []
    for line in lines + [""]:
        if line.startswith("       "):
            cur.append(line)
        elif cur:
            blocks.append(textwrap.dedent("\n".join(cur)) + "\n")
            cur = []
    return blocks


def runnable(block: str) -> str:
    keep = [l for l in block.splitlines() if not any(k in l for k in NOT_RUN)]
    return "\n".join(keep) + "\n"


def test_tutorial_blocks_are_found():
    blocks = tutorial_blocks((ROOT / "README.md").read_text())
    text = "".join(blocks)
    assert len(blocks) >= 5, blocks
    for cmd in ("cat > ", "satasim check", "satasim run", "tools/golden record", "tools/golden compare"):
        assert cmd in text, cmd


def copy_repo(dst: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "src")
    for d in ("harness", "scenarios", "golden", "tools"):
        shutil.copytree(ROOT / d, dst / d, ignore=ignore, symlinks=True)
    for f in ("README.md", "pytest.ini"):
        shutil.copy2(ROOT / f, dst / f)
    (dst / "build" / "bin").mkdir(parents=True)
    (dst / "build" / "bin" / "satasim").symlink_to(binary().resolve())
    (dst / ".gitignore").write_text("/build*/\n/out/\n__pycache__/\n")
    git = [need_tool("git", "git"), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([git[0], "init", "-q", str(dst)], check=True)
    subprocess.run(git + ["add", "-A"], cwd=dst, check=True)
    subprocess.run(git + ["commit", "-qm", "base"], cwd=dst, check=True)
    return dst


def sh(script: str, cwd: Path, env) -> subprocess.CompletedProcess:
    return subprocess.run([need_tool("bash", "bash"), "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_readme_tutorial_keeps_the_suite_green(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    # `python3` in the README is the interpreter running this test (it has PyYAML)
    pybin = tmp_path / "pybin"
    pybin.mkdir()
    (pybin / "python3").symlink_to(sys.executable)
    env = dict(os.environ, PATH=f"{pybin}:{os.environ['PATH']}",
               SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    env.pop("SATASIM_LINK_MODE", None)
    blocks = tutorial_blocks((repo / "README.md").read_text())

    # Earlier runs into the same output folder: "Running scenarios by hand" of the README
    # runs a suite scenario into out/mine, and a first draft of the test ran there under
    # another name before it was renamed (its file is gone).
    draft = tmp_path / "draft.yaml"
    scen_text = blocks[0].split("<<'YAML'\n", 1)[1].split("\nYAML\n", 1)[0]
    draft.write_text(re.sub(r"^name: .*$", "name: my-test-draft", scen_text, flags=re.M))
    for cmd in ("build/bin/satasim run scenarios/ncq-qd32-random.yaml --out out/mine",
                f"build/bin/satasim run {draft} --out out/mine"):
        r = sh(cmd, repo, env)
        assert r.returncode == 0, cmd + "\n" + r.stdout + r.stderr
    goldens_before = {p.name for p in (repo / "golden").iterdir()}

    outputs = []
    for block in blocks:
        r = sh(runnable(block), repo, env)
        assert r.returncode == 0, f"README block failed:\n{block}\n{r.stdout}{r.stderr}"
        outputs.append((block, r.stdout + r.stderr))

    # the golden record took the latest run only: the tutorial's scenario, no stale folder
    new = {p.name for p in (repo / "golden").iterdir()} - goldens_before
    assert new == {"my-test.ahci.golden"}, new
    record_block, record_out = next(o for o in outputs if "tools/golden record" in o[0])
    assert "my-test-draft: new golden" not in record_out, record_out
    # ... and the command the README gives after it to look at the result shows the new golden
    line = next(l for l in record_block.splitlines() if "tools/golden record" in l)
    assert "&&" in line, line
    look = line.split("&&", 1)[1].strip()
    r = sh(look, repo, env)
    assert r.returncode == 0 and "my-test.ahci.golden" in r.stdout, \
        f"`{look}` does not show the new golden:\n{r.stdout}{r.stderr}"

    # the tutorial's files are where it says and the default suite does not run them
    written = re.search(r"cat > (\S+) <<", blocks[0]).group(1)
    assert (repo / written).exists()
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
                        "-p", "no:xdist", "harness/tests/test_suite.py",
                        "harness/tests/test_controllers.py", "harness/tests/test_golden.py",
                        "-k", "my-test or every_golden or every_default"],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert "PASSED harness/tests/test_golden.py::test_scenario_matches_golden[my-test.ahci.golden]" \
        in r.stdout, r.stdout[-3000:]
    assert "test_every_default_and_fault_scenario_has_goldens_on_both_controllers" in r.stdout
    assert "test_every_golden_has_its_scenario" in r.stdout


def test_record_takes_only_the_latest_run_of_an_out_folder(tmp_path, capsys):
    def boot(t0):
        return [rec(t0, "eh.reset", port=0, msg="hard resetting link", method="hard", try_=1)]

    out = tmp_path / "out"
    write_run(out, "old-name", boot(10_000_000))     # an earlier run into the same folder
    d = write_run(out, "new-name", boot(10_000_000))
    (out / "summary.json").write_text(json.dumps({"total": 1, "scenarios": [
        {"name": "new-name", "verdict": "pass", "result": "new-name/result.json"}]}))
    gdir = tmp_path / "golden"
    assert main(["record", str(out), "--golden-dir", str(gdir)]) == 0
    assert sorted(p.name for p in gdir.iterdir()) == ["new-name.ahci.golden"]
    cap = capsys.readouterr()
    assert "ignoring 1 folder(s) from an earlier run, not in summary.json: old-name" in cap.err
    # compare looks at the latest run only, too
    assert main(["compare", str(out), "--golden-dir", str(gdir)]) == 0
    # a scenario's own folder is still taken as given
    assert main(["compare", str(out / "old-name"), "--golden-dir", str(gdir)]) == 1
    # a summary naming a folder that is not there is an error naming the file
    shutil.rmtree(d)
    assert main(["compare", str(out), "--golden-dir", str(gdir)]) == 2
    assert "new-name/result.json:" in capsys.readouterr().err
