"""Fits each piece's vector so that a text's weighted mean of piece vectors lands on the full
model's vector for it: ridge regression over the corpus lines that have teacher vectors, pulled
towards single.npy. Writes fitted.npy and frequency.npy.

python fit.py CORPUS LAMBDA SIF"""
import glob
import sys

import numpy as np
import scipy.sparse as sparse
import scipy.sparse.linalg as linalg

from minilm import model_dir
from pieces import Pieces

corpus, lam, sif = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
with open(f"{model_dir()}/vocab.txt", encoding="utf-8") as file:
    vocab = [line.rstrip("\n") for line in file]
pieces = Pieces(vocab)
with open(corpus, encoding="utf-8") as file:
    texts = file.read().split("\n")
cut = [pieces.ids(text) for text in texts]
frequency = np.zeros(len(vocab))
for ids in cut:
    np.add.at(frequency, ids, 1)
np.save("frequency.npy", frequency)
weight = sif / (sif + frequency / frequency.sum())

targets, rows = [], []
for path in sorted(glob.glob("teacher-*.npy")):
    start = int(path[len("teacher-") : -len(".npy")])
    found = np.load(path)
    targets.append(found)
    rows.extend(range(start, start + len(found)))
targets = np.concatenate(targets)
values, row_at, column_at = [], [], []
for row, line in enumerate(rows):
    ids = cut[line]
    total = weight[ids].sum() if ids else 0
    for piece in ids:
        row_at.append(row)
        column_at.append(piece)
        values.append(weight[piece] / total)
mix = sparse.csr_matrix((values, (row_at, column_at)), shape=(len(rows), len(vocab)))
prior = np.load("single.npy")
# A piece seen alone is a far longer vector than a sentence's unit vector: scale the prior so
# that the mean of a text's prior rows is about unit length too.
prior /= np.median(np.linalg.norm(mix @ prior, axis=1))
system = (mix.T @ mix + lam * sparse.identity(len(vocab))).tocsr()
right = mix.T @ targets + lam * prior
fitted = np.zeros_like(prior)
for column in range(prior.shape[1]):
    fitted[:, column], _ = linalg.cg(system, right[:, column], x0=prior[:, column], maxiter=200, rtol=1e-5)
np.save("fitted.npy", fitted)
print(f"{len(rows)} texts, {int((frequency > 0).sum())} pieces seen")
