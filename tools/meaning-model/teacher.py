"""The full model's sentence vector of corpus lines START..END: teacher-START.npy."""
import sys

import numpy as np

from minilm import MiniLM

corpus, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(corpus, encoding="utf-8") as file:
    texts = file.read().split("\n")[start:end]
model = MiniLM()
np.save(f"teacher-{start}.npy", model.encode_ids([model.bert_ids(t)[:62] for t in texts]))
