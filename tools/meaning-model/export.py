"""Writes the model skillbook ships: pieces.txt (one piece a line) and vectors.bin ("SKMV", the
row count and the dimensions as little-endian u32, the shared direction as f32, each row's f32
scale, the rows as signed bytes). Each row is the fitted vector less the mean of all, reduced to DIMENSIONS by PCA and
multiplied by its piece's weight SIF / (SIF + frequency), so that a text's vector is the plain
sum of its pieces' rows. BERT's bracketed special pieces, which no text is cut into, are left out.

The file also holds the direction that all texts share (the mean unit vector of the first 20,000
corpus lines), which skillbook takes away from every text's vector before comparing two, so that
unrelated texts score near 0 rather than near 0.4.

python export.py CORPUS SIF DIMENSIONS OUT_DIR"""
import struct
import sys

import numpy as np

from minilm import model_dir
from pieces import Pieces

corpus, sif, dimensions, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with open(f"{model_dir()}/vocab.txt", encoding="utf-8") as file:
    vocab = [line.rstrip("\n") for line in file]
fitted = np.load("fitted.npy").astype(np.float64)
frequency = np.load("frequency.npy")
centred = fitted - fitted.mean(0)
if dimensions < centred.shape[1]:
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    centred = centred @ axes[:dimensions].T
rows = centred * (sif / (sif + frequency / frequency.sum()))[:, None]
kept = [i for i, piece in enumerate(vocab) if not (piece.startswith("[") and piece.endswith("]") and len(piece) > 1)]
rows = rows[kept]
scales = np.abs(rows).max(1) / 127
scales[scales == 0] = 1
quantized = np.clip(np.round(rows / scales[:, None]), -127, 127).astype(np.int8)
kept_vocab = [vocab[i] for i in kept]
pieces = Pieces(kept_vocab)
restored = quantized.astype(np.float64) * scales.astype(np.float32)[:, None]
with open(corpus, encoding="utf-8") as file:
    lines = file.read().split("\n")[:20000]
shared = np.zeros(dimensions)
for line in lines:
    ids = pieces.ids(line)
    if ids:
        vector = restored[ids].sum(0)
        length = np.linalg.norm(vector)
        if length > 0:
            shared += vector / length
shared /= len(lines)
with open(f"{out}/pieces.txt", "w", encoding="utf-8") as file:
    file.write("\n".join(vocab[i] for i in kept) + "\n")
with open(f"{out}/vectors.bin", "wb") as file:
    file.write(b"SKMV" + struct.pack("<II", len(kept), dimensions))
    file.write(shared.astype("<f4").tobytes())
    file.write(scales.astype("<f4").tobytes())
    file.write(quantized.tobytes())
print(f"{len(kept)} pieces, {dimensions} dimensions")
