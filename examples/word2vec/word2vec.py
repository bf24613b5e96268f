"""Trains word embeddings with the word2vec op library (word2vec_ops.cc),
as train_word2vec.cc does from C++:

    python word2vec.py LIBRARY CORPUS [--dim 64] [--epochs 5] [--window 3]
        [--min-count 5] [--negatives 5] [--lr 0.2] [--batch 256]
        [--subsample 1e-3] [--seed 1] [--query w1,w2,...]

skipgram_word2vec gives batches of (center, context) word ids until the last
epoch ends (OutOfRangeError); neg_train_word2vec updates the two embedding
matrices, NumPy arrays, in place. Both run in C++ without the GIL. Prints
one JSON line: the vocabulary size, the words and pairs trained, words/s,
and the nearest word (cosine of the input embeddings) of each --query word.
"""
import argparse
import json
import time

import numpy as np

import inflow


def nearest(w, word):
    """The id nearest to `word` in `w` by cosine, UNK (0) and itself left
    out."""
    unit = w / (np.linalg.norm(w, axis=1, keepdims=True) + 1e-12)
    cos = unit @ unit[word]
    cos[0] = cos[word] = -2
    return int(np.argmax(cos))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("library")
    p.add_argument("corpus")
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--window", type=int, default=3)
    p.add_argument("--min-count", type=int, default=5)
    p.add_argument("--negatives", type=int, default=5)
    p.add_argument("--lr", type=float, default=0.2)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--subsample", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--query", default="")
    args = p.parse_args()

    ops = inflow.load_op_library(args.library)
    skipgram = ops.skipgram_word2vec.instance(
        filename=args.corpus, batch_size=args.batch, window_size=args.window,
        min_count=args.min_count, subsample=args.subsample, epochs=args.epochs,
        seed=args.seed)

    start = time.perf_counter()
    (vocab_word, vocab_freq, words_per_epoch, _, words, examples,
     labels) = skipgram()
    vocab = len(vocab_word)
    train = ops.neg_train_word2vec.instance(
        vocab_count=vocab_freq.tolist(), num_negative_samples=args.negatives,
        seed=args.seed)
    rng = np.random.default_rng(args.seed)
    w_in = rng.uniform(-0.5 / args.dim, 0.5 / args.dim,
                       (vocab, args.dim)).astype(np.float32)
    w_out = np.zeros((vocab, args.dim), np.float32)

    pairs = 0
    while True:
        # The learning rate falls linearly to 1e-4 of its start.
        progress = words / (words_per_epoch * args.epochs)
        lr = np.float32(args.lr * max(1e-4, 1.0 - progress))
        train(w_in, w_out, examples, labels, lr)
        pairs += len(examples)
        try:
            _, _, _, _, words, examples, labels = skipgram()
        except inflow.errors.OutOfRangeError:
            break
    seconds = time.perf_counter() - start

    ids = {w.decode(): i for i, w in enumerate(vocab_word)}
    neighbors = {}
    for q in filter(None, args.query.split(",")):
        if q not in ids:
            raise SystemExit(f"--query: {q} is not in the vocabulary")
        neighbors[q] = vocab_word[nearest(w_in, ids[q])].decode()
    print(json.dumps({"example": "word2vec", "language": "python", "vocab": vocab,
                      "words": int(words), "pairs": pairs,
                      "words_per_sec": round(int(words) / seconds, 1),
                      "neighbors": neighbors}))


if __name__ == "__main__":
    main()
