"""bench_custom_ops's NumPy side: one epoch of word2vec on CORPUS with the
algorithm of examples/word2vec/word2vec_ops.cc (vocabulary with min_count 5,
word2vec's subsampling at 1e-3, a window drawn from [1, 5] per center,
5 negatives from the unigram distribution to the 3/4 power, dim 64, batches
of 256 pairs, the learning rate falling linearly from 0.2), in NumPy: the
pairs of the epoch at once, then one vectorized SGD step per batch.

    python word2vec_numpy.py CORPUS

The last line: {"words_per_s": x}.
"""
import collections
import json
import sys
import time

import numpy as np

DIM, WINDOW, NEGATIVES, BATCH, MIN_COUNT, SUBSAMPLE, LR = 64, 5, 5, 256, 5, 1e-3, 0.2


def main():
    start = time.perf_counter()
    with open(sys.argv[1]) as f:
        words = f.read().split()
    counts = collections.Counter(words)
    kept = sorted(((w, n) for w, n in counts.items() if n >= MIN_COUNT),
                  key=lambda p: (-p[1], p[0]))
    ids = {w: i + 1 for i, (w, _) in enumerate(kept)}
    freq = np.array([sum(n for n in counts.values() if n < MIN_COUNT)] +
                    [n for _, n in kept], np.float64)
    corpus = np.array([ids.get(w, 0) for w in words], np.int64)
    rng = np.random.default_rng(1)

    # The pairs: centers kept by subsampling, contexts within each center's
    # drawn window.
    f = freq / len(corpus)
    keep = np.where(f > 0, (np.sqrt(f / SUBSAMPLE) + 1) * SUBSAMPLE / np.maximum(f, 1e-300), 1)
    n = len(corpus)
    centers = np.flatnonzero(rng.random(n) < keep[corpus])
    reach = rng.integers(1, WINDOW + 1, len(centers))
    ex, lab = [], []
    for off in range(1, WINDOW + 1):
        c = centers[reach >= off]
        for ctx in (c - off, c + off):
            ok = (ctx >= 0) & (ctx < n)
            ex.append(corpus[c[ok]])
            lab.append(corpus[ctx[ok]])
    ex, lab = np.concatenate(ex), np.concatenate(lab)
    order = rng.permutation(len(ex))
    ex, lab = ex[order], lab[order]

    vocab = len(freq)
    w_in = rng.uniform(-0.5 / DIM, 0.5 / DIM, (vocab, DIM)).astype(np.float32)
    w_out = np.zeros((vocab, DIM), np.float32)
    p = freq ** 0.75
    p /= p.sum()
    for b in range(0, len(ex), BATCH):
        e, l = ex[b:b + BATCH], lab[b:b + BATCH]
        lr = np.float32(LR * max(1e-4, 1 - b / len(ex)))
        targets = np.concatenate([l[:, None],
                                  rng.choice(vocab, (len(e), NEGATIVES), p=p)], axis=1)
        truth = np.zeros(targets.shape, np.float32)
        truth[:, 0] = 1
        v = w_in[e]                                      # [B, D]
        u = w_out[targets]                               # [B, 1+K, D]
        z = np.einsum("bd,bkd->bk", v, u)
        g = (truth - 1 / (1 + np.exp(-z))) * lr          # [B, 1+K]
        np.add.at(w_in, e, np.einsum("bk,bkd->bd", g, u))
        np.add.at(w_out, targets, g[:, :, None] * v[:, None, :])
    seconds = time.perf_counter() - start
    print(json.dumps({"words_per_s": round(n / seconds, 1)}))


if __name__ == "__main__":
    main()
