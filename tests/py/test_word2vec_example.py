"""examples/word2vec, built as a user builds it: inflow installed to a
temporary prefix, the example configured with find_package(inflow) and
inflow_add_op_library; then its C++ program and its Python script train on
a corpus with a planted co-occurrence structure (groups of made-up words
that appear together, among words of a licence text), and each planted
word's nearest word is one of its group."""
import json
import os
import pathlib
import random
import re
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT

GROUPS = [[f"{name}{i}" for i in range(4)]
          for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")]
LICENSE = pathlib.Path("/usr/share/common-licenses/GPL-3")


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert result.returncode == 0, f"{cmd}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """(the op library, the C++ program), built against an installed
    inflow."""
    work = tmp_path_factory.mktemp("word2vec")
    prefix, build = work / "prefix", work / "build"
    run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)])
    run(["cmake", "-S", str(ROOT / "examples" / "word2vec"), "-B", str(build), "-G",
         "Ninja", "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", str(build)])
    return build / "libword2vec_ops.so", build / "train_word2vec"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """6,000 lines, each of two words of one group after every two words of
    the licence, three times: the group's words are each other's context."""
    rng = random.Random(7)
    filler = [w.lower() for w in re.findall(r"[A-Za-z]+", LICENSE.read_text())]
    lines = []
    for _ in range(6000):
        group = rng.choice(GROUPS)
        words = []
        for _ in range(3):
            words += rng.sample(filler, 2) + rng.sample(group, 2)
        lines.append(" ".join(words))
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


ARGS = ["--epochs", "3", "--dim", "32", "--query",
        ",".join(w for g in GROUPS for w in g)]


def check_neighbors(result):
    assert result["example"] == "word2vec"
    assert result["words"] == 3 * 72000
    assert result["pairs"] > 0 and result["words_per_sec"] > 0
    group_of = {w: i for i, g in enumerate(GROUPS) for w in g}
    hits = [group_of.get(nn) == group_of[w] for w, nn in result["neighbors"].items()]
    assert len(hits) == 24
    # Every planted word but at most two finds one of its group nearest.
    assert sum(hits) >= 22, result["neighbors"]


def test_the_cpp_program_learns_the_planted_groups(example, corpus):
    library, program = example
    out = run([str(program), str(library), str(corpus)] + ARGS)
    result = json.loads(out.strip().splitlines()[-1])
    assert result["language"] == "c++"
    check_neighbors(result)


def test_the_python_script_learns_the_planted_groups(example, corpus):
    library, _ = example
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(BUILD / "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = run([sys.executable, str(ROOT / "examples" / "word2vec" / "word2vec.py"),
               str(library), str(corpus)] + ARGS, env=env)
    result = json.loads(out.strip().splitlines()[-1])
    assert result["language"] == "python"
    check_neighbors(result)


def test_skipgram_ends_with_out_of_range_after_its_epochs(example, corpus):
    import numpy as np

    import inflow
    library, _ = example
    ops = inflow.load_op_library(library)
    skipgram = ops.skipgram_word2vec.instance(filename=str(corpus), batch_size=4096,
                                              epochs=1, window_size=1, subsample=0.0)
    words_per_epoch, total, batches = None, 0, 0
    while True:
        try:
            vocab, _, words_per_epoch, epoch, words, examples, labels = skipgram()
        except inflow.errors.OutOfRangeError as e:
            assert "1 epochs done" in str(e)
            break
        assert examples.dtype == np.int32 and len(examples) == len(labels) <= 4096
        total += len(examples)
        batches += 1
    # Window 1 without subsampling: two pairs per word, but the corpus's
    # first and last words have one.
    assert words_per_epoch == 72000 and total == 2 * 72000 - 2
    assert vocab[0] == b"UNK"
    with pytest.raises(inflow.errors.OutOfRangeError):
        skipgram()
