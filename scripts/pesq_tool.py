#!/usr/bin/env python3
"""Speech sample preparation and PESQ-WB scoring for the benchmark.

  pesq_tool.py prepare OUT.wav      speak Harvard sentences with espeak-ng, write 48 kHz mono 16-bit
  pesq_tool.py prepare-short OUT.wav   the same with two sentences (about 5 s), for tests
  pesq_tool.py prepare-set PREFIX   write PREFIX-1.wav ... PREFIX-3.wav: three voices (male, female,
                                    another male), each speaking its own Harvard list, 9-12 s each
  pesq_tool.py score REF.wav DEG.wav   resample both to 16 kHz and print the P.862.2 (wide-band) MOS-LQO
  pesq_tool.py score-list LIST      score each "REF.wav DEG.wav" line of LIST; print one score a line
"""
import subprocess
import sys
import tempfile
import wave

import numpy as np
from scipy.signal import resample_poly

SENTENCES = (
    "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. "
    "It is easy to tell the depth of a well. These days a chicken leg is a rare dish. "
    "Rice is often served in round bowls. The juice of lemons makes fine punch."
)

# One Harvard list per voice, so no two samples share a sentence.
SPEAKERS = (
    ("en-us", 150, "Oak is strong and also gives shade. Cats and dogs each hate the other. "
     "The pipe began to rust while new. Open the crate but don't break the glass. "
     "Add the sum to the product of these three."),
    ("en-gb+f3", 145, "A wisp of cloud hung in the blue air. A pound of sugar costs more than eggs. "
     "The fin was sharp and cut the clear water. The play seems dull and quite stupid. "
     "Bail the boat to stop it from sinking."),
    ("en-us+m3", 140, "The stray cat gave birth to kittens. The young girl gave no clear response. "
     "The meal was cooked before the bell rang. What joy there is in living. "
     "A king ruled the state in the early days."),
)


def read_wav(path):
    with wave.open(path, "rb") as w:
        rate, channels = w.getframerate(), w.getnchannels()
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    if channels > 1:
        data = data.reshape(-1, channels).mean(axis=1)
    return rate, data


def write_wav(path, rate, data):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.clip(data, -32768, 32767).astype("<i2").tobytes())


def prepare(out, voice="en-us", speed=150, text=SENTENCES):
    with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", tmp.name, text], check=True)
        rate, data = read_wav(tmp.name)
    from math import gcd
    g = gcd(rate, 48000)
    data = resample_poly(data, 48000 // g, rate // g)
    data *= 0.5 * 32767 / max(1.0, np.abs(data).max())  # about -6 dBFS peak
    write_wav(out, 48000, data)


def score(ref_path, deg_path):
    from pesq import pesq
    _, ref = read_wav(ref_path)
    _, deg = read_wav(deg_path)
    n = min(len(ref), len(deg))
    ref16 = resample_poly(ref[:n], 1, 3)
    deg16 = resample_poly(deg[:n], 1, 3)
    return pesq(16000, ref16, deg16, "wb")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "prepare-short":
        prepare(sys.argv[2], text=". ".join(SENTENCES.split(". ")[:2]) + ".")
    elif len(sys.argv) == 3 and sys.argv[1] == "prepare-set":
        for i, (voice, speed, text) in enumerate(SPEAKERS, start=1):
            prepare("%s-%d.wav" % (sys.argv[2], i), voice, speed, text)
    elif len(sys.argv) == 4 and sys.argv[1] == "score":
        print("%.3f" % score(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "score-list":
        with open(sys.argv[2]) as pairs:
            for line in pairs:
                if line.strip():
                    ref_path, deg_path = line.split()
                    print("%.3f" % score(ref_path, deg_path))
    else:
        sys.exit(__doc__)
