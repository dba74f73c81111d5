"""Each piece's vector as the full model sees it alone ([CLS] piece [SEP], mean pooled, not
normalized): the prior the fit starts from. Writes single.npy."""
import numpy as np

from minilm import CLS, SEP, MiniLM

model = MiniLM()
count = len(model.vocab)
out = np.zeros((count, 384), dtype=np.float32)
for at in range(0, count, 1024):
    ids = np.array([[CLS, piece, SEP] for piece in range(at, min(count, at + 1024))])
    out[at : at + len(ids)] = model.hidden(ids, np.ones(ids.shape, dtype=np.float32)).mean(1)
np.save("single.npy", out)
