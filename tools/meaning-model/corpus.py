"""The fitting corpus: every WordNet synset as "its words: its gloss" (Debian's wordnet-base) and
every package summary Debian lists as "its name: its summary" (apt-cache dumpavail), shuffled
with a fixed seed. Prints one text a line."""
import random
import re
import subprocess
import sys

texts = []
for part in ["noun", "verb", "adj", "adv"]:
    with open(f"/usr/share/wordnet/data.{part}", encoding="latin-1") as file:
        for line in file:
            if line.startswith("  "):
                continue  # the licence at the head of the file
            head, _, gloss = line.partition(" | ")
            fields = head.split()
            count = int(fields[3], 16)
            words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i].replace("_", " ")) for i in range(count)]
            texts.append(", ".join(words) + ": " + gloss.strip())
listing = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
package = None
for line in listing.splitlines():
    if line.startswith("Package: "):
        package = line[len("Package: ") :]
    elif line.startswith("Description: ") and package:
        texts.append(package.replace("-", " ") + ": " + line[len("Description: ") :])
        package = None
random.seed(7)
random.shuffle(texts)
sys.stdout.write("\n".join(text.replace("\n", " ") for text in texts))
