"""The 6th wrong passcode is a lockout: a pytest test of touchgate's counting against real PAM
(docs/testing.md). Needs `touchgate` on PATH (or $TOUCHGATE) and pam_matrix.so (libpam-wrapper)."""
import json
import os
import subprocess

import pytest

TOUCHGATE = os.environ.get("TOUCHGATE", "touchgate")


@pytest.fixture
def world(tmp_path):
    """A private PAM world: its environment, removed at the end."""
    directory = tmp_path / "world"
    made = subprocess.run([TOUCHGATE, "--json", "test-world", "create", str(directory)],
                          capture_output=True, text=True, check=True)
    env = dict(os.environ, **json.loads(made.stdout)["environment"])
    yield env
    subprocess.run([TOUCHGATE, "test-world", "remove", str(directory)], check=True)


def auth(env, answer):
    """One `touchgate -S --json auth` with `answer` as its one line: (exit status, JSON)."""
    done = subprocess.run([TOUCHGATE, "-S", "--json", "auth"], input=answer + "\n",
                          capture_output=True, text=True, env=env)
    return done.returncode, json.loads(done.stdout)


def test_the_sixth_wrong_try_is_a_lockout(world):
    subprocess.run([TOUCHGATE, "config", "set", "passcode-tries-per-evaluation", "1"],
                   env=world, check=True, capture_output=True)
    for n in range(1, 6):
        status, result = auth(world, f"wrong-{n}")
        assert (status, result["outcome"]) == (1, "authenticationFailed"), result
        assert result.get("retryAfterSeconds") is None, result
    assert result["attemptsLeft"]["passcode"] == 0

    status, result = auth(world, "alice-passcode")
    assert status == 1
    assert result["retryAfterSeconds"] == 60
    assert result["message"] == "Authentication failed: too many wrong passcodes. Try again in 60 s."
    state = json.loads(subprocess.run([TOUCHGATE, "--json", "status"], env=world,
                                      capture_output=True, text=True, check=True).stdout)
    assert state["passcodeFailures"] == 5
