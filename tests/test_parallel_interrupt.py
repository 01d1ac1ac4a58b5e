"""A batch's worker processes exit quietly when the batch is interrupted (Ctrl-C reaches the
whole process group) or killed: the batch's own line is the only thing on stderr after the
progress, whatever the workers were doing."""

import os
import signal
import subprocess
import sys

import pytest

from tests.test_batch_interrupt import make_project
from testing.corpus import documents

pytestmark = pytest.mark.servers  # processes of their own

ROWS = 12_000


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A folder with a table of ROWS texts and dedup.toml: 2 worker processes, small chunks."""
    folder = tmp_path_factory.mktemp("parallel")
    make_project(folder, [{"id": i + 1, "content": t} for i, t in enumerate(documents(150, ROWS))],
                 chunk_size=100, processes=2)
    return folder


def signalled_while_fingerprinting(folder, sig, group):
    """Run a batch, send `sig` once its workers have fingerprinted a chunk (to the whole
    process group, as Ctrl-C does, or to the batch alone); its exit code, and its stderr
    from then on, up to the last worker's exit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEDUP_")}
    batch = subprocess.Popen([sys.executable, "-m", "dedup_pipeline", "batch", "--config", "dedup.toml"],
                             cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    for line in batch.stderr:
        if line.startswith("fingerprinting:"):
            break
    os.killpg(batch.pid, sig) if group else batch.send_signal(sig)
    after = batch.stderr.read()  # until every process holding stderr, workers too, has exited
    return batch.wait(timeout=60), after


def test_ctrl_c_during_a_batch_is_its_one_line_and_exit_130(project):
    code, stderr = signalled_while_fingerprinting(project, signal.SIGINT, group=True)
    assert code == 130 and stderr == "Error: interrupted\n"


@pytest.mark.parametrize("attempt", range(3))
def test_workers_of_a_killed_batch_exit_without_a_word(project, attempt):
    code, stderr = signalled_while_fingerprinting(project, signal.SIGKILL, group=False)
    assert code == -signal.SIGKILL and stderr == ""
