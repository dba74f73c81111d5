"""Cuts text into word pieces as skillbook does (crates/skillbook/src/search/meaning.rs):
lower-case runs of letters and digits without their accents, every other non-space character
alone, each word into its longest known pieces left to right, a word with an unknown part or over
100 characters dropped.
Python and Rust class a few combining marks (Devanagari and Arabic vowel signs) differently, and
skillbook also stops after 4,096 words; on the English corpus the two agree."""
import unicodedata


def fold(word):
    """`word` without combining marks (résumé → resume), as the vocabulary has no accents."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.category(c).startswith("M"))


def words(text):
    out, word = [], ""
    for character in "".join(c.lower() for c in text):  # one at a time, as Rust does
        if character.isalnum():
            word += character
            continue
        if word:
            out.append(fold(word))
            word = ""
        if not character.isspace():
            out.append(character)
    if word:
        out.append(fold(word))
    return out


class Pieces:
    def __init__(self, vocab):
        self.vocab = vocab
        self.starts = {p: i for i, p in enumerate(vocab) if not (p.startswith("##") and len(p) > 2)}
        self.continuations = {p[2:]: i for i, p in enumerate(vocab) if p.startswith("##") and len(p) > 2}

    def cut(self, word):
        if len(word) > 100:
            return []
        ids, rest, table = [], word, self.starts
        while rest:
            for end in range(len(rest), 0, -1):
                if rest[:end] in table:
                    ids.append(table[rest[:end]])
                    rest = rest[end:]
                    break
            else:
                return []
            table = self.continuations
        return ids

    def ids(self, text):
        out = []
        for word in words(text):
            out += self.cut(word)
        return out
