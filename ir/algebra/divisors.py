"""The divisors of an integer, in time that does not grow with its value.

The symbolic engine looks for a divisor ``d`` of a constant ``c`` with some property. Trying
every ``d`` from ``c`` down to 2 cost seconds for ``c = 2**24`` and minutes for ``2**31`` (a
static extent in a user's layout is enough to ask for it). Factoring ``c`` (trial division by
small primes, then Pollard's rho with a deterministic Miller-Rabin test for 64-bit values) and
listing its divisors costs microseconds; the number of divisors of a 64-bit integer is at most
about 10^5, and callers bound how many they look at.
"""

from __future__ import annotations

import math
from functools import lru_cache

_SMALL_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def _is_prime(n: int) -> bool:
    """Miller-Rabin, deterministic below 3.3 * 10^24 with these bases (and probable above)."""
    if n < 2:
        return False
    for p in _SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _SMALL_PRIMES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _rho(n: int) -> int:
    """A non-trivial factor of the odd composite n (Brent's variant of Pollard's rho)."""
    for c in range(1, 64):
        y, m, g, r, q = 2, 128, 1, 1, 1
        x = ys = y
        while g == 1:
            x = y
            for _ in range(r):
                y = (y * y + c) % n
            k = 0
            while k < r and g == 1:
                ys = y
                for _ in range(min(m, r - k)):
                    y = (y * y + c) % n
                    q = q * abs(x - y) % n
                g = math.gcd(q, n)
                k += m
            r *= 2
        if g == n:
            g = 1
            while g == 1:
                ys = (ys * ys + c) % n
                g = math.gcd(abs(x - ys), n)
        if g != n:
            return g
    raise ArithmeticError(f"could not factor {n}")  # not reached for composites


def factorize(n: int) -> dict[int, int]:
    """The prime factorisation of ``n >= 1`` as {prime: exponent}."""
    if n < 1:
        raise ValueError(f"factorize: expected a positive integer, got {n}")
    out: dict[int, int] = {}
    for p in range(2, 1000):
        if p * p > n:
            break
        while n % p == 0:
            out[p] = out.get(p, 0) + 1
            n //= p
    todo = [n] if n > 1 else []
    while todo:
        m = todo.pop()
        if _is_prime(m):
            out[m] = out.get(m, 0) + 1
        else:
            f = _rho(m)
            todo += [f, m // f]
    return out


@lru_cache(maxsize=1024)
def divisors_desc(n: int, limit: int = 1 << 12) -> tuple[int, ...]:
    """The divisors of ``n >= 1``, largest first; at most ``limit`` of them (the largest)."""
    divs = [1]
    for p, e in factorize(n).items():
        divs = [d * p**k for d in divs for k in range(e + 1)]
    divs.sort(reverse=True)
    return tuple(divs[:limit])
