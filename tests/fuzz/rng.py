"""A splitmix64 random generator: the same stream for a seed on every Python version and machine,
so `--seed N --case I` names one expression everywhere (Python's own `random` may change)."""

MASK = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return x, z ^ (z >> 31)


class Rng:
    def __init__(self, *seeds):
        s = 0x6A09E667F3BCC908
        for v in seeds:  # mix every seed component in
            s, z = splitmix64(s ^ (v & MASK))
            s = z
        self.state = s

    def u64(self):
        self.state, z = splitmix64(self.state)
        return z

    def below(self, n):
        """Uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below(0)")
        return self.u64() % n  # n is tiny: the modulo bias is irrelevant here

    def range(self, lo, hi):
        """Uniform integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def random(self):
        return (self.u64() >> 11) * (1.0 / (1 << 53))

    def chance(self, p):
        return self.random() < p

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, pairs):
        """pairs: [(item, weight)]."""
        total = sum(w for _, w in pairs)
        r = self.random() * total
        for item, w in pairs:
            r -= w
            if r < 0:
                return item
        return pairs[-1][0]

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]
        return seq
