"""Easy function-call problems (each with a plausible wrong solution)."""

from . import Fn, d, ints, word

PROBLEMS = [
    Fn(
        "sum_evens",
        "easy",
        "def sum_evens(xs: list[int]) -> int:",
        "Return the sum of the even numbers in xs (0 for an empty list).",
        d("""
       def sum_evens(xs):
           return sum(x for x in xs if x % 2 == 0)
       """),
        lambda r: [ints(r, 0, 12, -50, 50)],
        [[[]], [[1, 3, 5]], [[-2, -4, 7]]],
        wrong=d("""
       def sum_evens(xs):
           return sum(x for x in xs if x > 0 and x % 2 == 0)
       """),
    ),
    Fn(
        "count_vowels",
        "easy",
        "def count_vowels(s: str) -> int:",
        "Return how many characters of s are vowels (a, e, i, o, u, either case).",
        d("""
       def count_vowels(s):
           return sum(ch in "aeiouAEIOU" for ch in s)
       """),
        lambda r: [word(r, 0, 15, "abEIoUxyzAkt")],
        [[""], ["AEIOU"], ["rhythm"]],
        wrong=d("""
       def count_vowels(s):
           return sum(ch in "aeiou" for ch in s)
       """),
    ),
    Fn(
        "is_palindrome",
        "easy",
        "def is_palindrome(s: str) -> bool:",
        "Return True if s reads the same forwards and backwards, ignoring case and every "
        "character that is not a letter or digit.",
        d("""
       def is_palindrome(s):
           t = [c.lower() for c in s if c.isalnum()]
           return t == t[::-1]
       """),
        lambda r: [r.choice([word(r, 0, 6, "abA ,"), (lambda w: w + w[::-1])(word(r, 1, 5, "abcB, "))])],
        [[""], ["A man, a plan, a canal: Panama"], ["ab"], ["No lemon, no melon"]],
        wrong=d("""
       def is_palindrome(s):
           return s == s[::-1]
       """),
    ),
    Fn(
        "fizzbuzz",
        "easy",
        "def fizzbuzz(n: int) -> list[str]:",
        "Return the FizzBuzz sequence for 1..n: 'Fizz' for multiples of 3, 'Buzz' for multiples "
        "of 5, 'FizzBuzz' for multiples of both, else the number as a string.",
        d("""
       def fizzbuzz(n):
           out = []
           for i in range(1, n + 1):
               s = ("Fizz" if i % 3 == 0 else "") + ("Buzz" if i % 5 == 0 else "")
               out.append(s or str(i))
           return out
       """),
        lambda r: [r.randint(1, 40)],
        [[0], [1], [15]],
        wrong=d("""
       def fizzbuzz(n):
           out = []
           for i in range(1, n + 1):
               if i % 3 == 0:
                   out.append("Fizz")
               elif i % 5 == 0:
                   out.append("Buzz")
               else:
                   out.append(str(i))
           return out
       """),
    ),
    Fn(
        "second_largest",
        "easy",
        "def second_largest(xs: list[int]) -> int | None:",
        "Return the second largest distinct value of xs, or None when xs has fewer than two distinct values.",
        d("""
       def second_largest(xs):
           vals = sorted(set(xs))
           return vals[-2] if len(vals) >= 2 else None
       """),
        lambda r: [ints(r, 0, 8, -5, 5)],
        [[[]], [[3, 3, 3]], [[1, 2]], [[5, 5, 4]]],
        wrong=d("""
       def second_largest(xs):
           if len(xs) < 2:
               return None
           return sorted(xs)[-2]
       """),
    ),
    Fn(
        "celsius_to_f",
        "easy",
        "def celsius_to_f(c: float) -> float:",
        "Convert a temperature from Celsius to Fahrenheit (F = C * 9 / 5 + 32).",
        d("""
       def celsius_to_f(c):
           return c * 9 / 5 + 32
       """),
        lambda r: [round(r.uniform(-100, 100), 2)],
        [[0], [-40], [100]],
        wrong=d("""
       def celsius_to_f(c):
           return (c + 32) * 9 / 5
       """),
        float_tol=1e-6,
    ),
    Fn(
        "count_words",
        "easy",
        "def count_words(s: str) -> int:",
        "Return the number of words in s, where words are separated by any amount of whitespace.",
        d("""
       def count_words(s):
           return len(s.split())
       """),
        lambda r: [" ".join(word(r, 0, 4, "ab") for _ in range(r.randint(0, 6)))],
        [[""], ["   "], ["one"], ["  two   words  "]],
        wrong=d("""
       def count_words(s):
           return s.count(" ") + 1
       """),
    ),
    Fn(
        "max_of_list",
        "easy",
        "def max_of_list(xs: list[int]) -> int | None:",
        "Return the largest element of xs without using max(); None for an empty list.",
        d("""
       def max_of_list(xs):
           best = None
           for x in xs:
               if best is None or x > best:
                   best = x
           return best
       """),
        lambda r: [ints(r, 0, 10, -100, 100)],
        [[[]], [[-5, -3, -9]], [[7]]],
        wrong=d("""
       def max_of_list(xs):
           best = 0
           for x in xs:
               if x > best:
                   best = x
           return best if xs else None
       """),
    ),
    Fn(
        "factorial",
        "easy",
        "def factorial(n: int) -> int:",
        "Return n! for n >= 0 (0! = 1).",
        d("""
       def factorial(n):
           out = 1
           for i in range(2, n + 1):
               out *= i
           return out
       """),
        lambda r: [r.randint(0, 25)],
        [[0], [1], [5]],
        wrong=d("""
       def factorial(n):
           out = 1
           for i in range(1, n):
               out *= i
           return out
       """),
    ),
    Fn(
        "reverse_words",
        "easy",
        "def reverse_words(s: str) -> str:",
        "Return the words of s in reverse order, joined by single spaces (extra whitespace dropped).",
        d("""
       def reverse_words(s):
           return " ".join(reversed(s.split()))
       """),
        lambda r: [" ".join(word(r, 1, 4, "xyz") for _ in range(r.randint(0, 5)))],
        [[""], ["hello"], ["  a  b c "]],
        wrong=d("""
       def reverse_words(s):
           return " ".join(s.split(" ")[::-1])
       """),
    ),
    Fn(
        "digit_sum",
        "easy",
        "def digit_sum(n: int) -> int:",
        "Return the sum of the decimal digits of n (the sign is ignored).",
        d("""
       def digit_sum(n):
           return sum(int(c) for c in str(abs(n)))
       """),
        lambda r: [r.randint(-(10**9), 10**9)],
        [[0], [-123], [9999]],
        wrong=d("""
       def digit_sum(n):
           total = 0
           while n > 0:
               total += n % 10
               n //= 10
           return total
       """),
    ),
    Fn(
        "is_prime",
        "easy",
        "def is_prime(n: int) -> bool:",
        "Return True if n is a prime number.",
        d("""
       def is_prime(n):
           if n < 2:
               return False
           i = 2
           while i * i <= n:
               if n % i == 0:
                   return False
               i += 1
           return True
       """),
        lambda r: [r.randint(-5, 500)],
        [[0], [1], [2], [97], [49]],
        wrong=d("""
       def is_prime(n):
           if n < 2:
               return False
           for i in range(2, int(n ** 0.5)):
               if n % i == 0:
                   return False
           return True
       """),
    ),
    Fn(
        "capitalize_words",
        "easy",
        "def capitalize_words(s: str) -> str:",
        "Return s with the first letter of every space-separated word upper-cased and the rest "
        "of each word unchanged; spaces are kept as they are.",
        d("""
       def capitalize_words(s):
           return " ".join(w[:1].upper() + w[1:] for w in s.split(" "))
       """),
        lambda r: [" ".join(word(r, 0, 5, "abcXY") for _ in range(r.randint(1, 4)))],
        [[""], ["hello wORLD"], ["a  b"]],
        wrong=d("""
       def capitalize_words(s):
           return s.title()
       """),
    ),
    Fn(
        "running_sum",
        "easy",
        "def running_sum(xs: list[int]) -> list[int]:",
        "Return the list of prefix sums of xs: element i is xs[0] + ... + xs[i].",
        d("""
       def running_sum(xs):
           out, total = [], 0
           for x in xs:
               total += x
               out.append(total)
           return out
       """),
        lambda r: [ints(r, 0, 10, -20, 20)],
        [[[]], [[5]], [[1, -1, 1]]],
        wrong=d("""
       def running_sum(xs):
           return [sum(xs[:i]) for i in range(len(xs))]
       """),
    ),
    Fn(
        "remove_duplicates",
        "easy",
        "def remove_duplicates(xs: list[int]) -> list[int]:",
        "Return xs without repeated values, keeping the first occurrence of each in order.",
        d("""
       def remove_duplicates(xs):
           seen, out = set(), []
           for x in xs:
               if x not in seen:
                   seen.add(x)
                   out.append(x)
           return out
       """),
        lambda r: [ints(r, 0, 12, 0, 6)],
        [[[]], [[3, 1, 3, 2, 1]]],
        wrong=d("""
       def remove_duplicates(xs):
           return sorted(set(xs))
       """),
    ),
    Fn(
        "gcd",
        "easy",
        "def gcd(a: int, b: int) -> int:",
        "Return the greatest common divisor of a and b (non-negative; gcd(0, 0) = 0).",
        d("""
       def gcd(a, b):
           a, b = abs(a), abs(b)
           while b:
               a, b = b, a % b
           return a
       """),
        lambda r: [r.randint(-200, 200), r.randint(-200, 200)],
        [[0, 0], [0, 7], [-12, 18], [17, 5]],
        wrong=d("""
       def gcd(a, b):
           while b:
               a, b = b, a % b
           return a
       """),
    ),
    Fn(
        "count_char",
        "easy",
        "def count_char(s: str, c: str) -> int:",
        "Return how many times the character c occurs in s, case-insensitively.",
        d("""
       def count_char(s, c):
           return s.lower().count(c.lower())
       """),
        lambda r: [word(r, 0, 12, "aAbB"), r.choice("aAbB")],
        [["", "a"], ["AaAa", "a"]],
        wrong=d("""
       def count_char(s, c):
           return s.count(c)
       """),
    ),
    Fn(
        "average",
        "easy",
        "def average(xs: list[float]) -> float:",
        "Return the arithmetic mean of xs, or 0.0 for an empty list.",
        d("""
       def average(xs):
           return sum(xs) / len(xs) if xs else 0.0
       """),
        lambda r: [[round(r.uniform(-10, 10), 3) for _ in range(r.randint(0, 8))]],
        [[[]], [[1, 2]]],
        wrong=d("""
       def average(xs):
           return sum(xs) // len(xs) if xs else 0.0
       """),
        float_tol=1e-6,
    ),
    Fn(
        "leap_year",
        "easy",
        "def leap_year(y: int) -> bool:",
        "Return True if y is a leap year in the Gregorian calendar.",
        d("""
       def leap_year(y):
           return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
       """),
        lambda r: [r.choice([r.randint(1, 3000), r.randint(1, 30) * 100])],
        [[1900], [2000], [2024], [2023]],
        wrong=d("""
       def leap_year(y):
           return y % 4 == 0
       """),
    ),
    Fn(
        "clamp_list",
        "easy",
        "def clamp_list(xs: list[int], lo: int, hi: int) -> list[int]:",
        "Return xs with every element clamped into the range [lo, hi].",
        d("""
       def clamp_list(xs, lo, hi):
           return [min(max(x, lo), hi) for x in xs]
       """),
        lambda r: [ints(r, 0, 8, -20, 20), r.randint(-10, 0), r.randint(0, 10)],
        [[[], 0, 1], [[-5, 5], -1, 1]],
        wrong=d("""
       def clamp_list(xs, lo, hi):
           return [x for x in xs if lo <= x <= hi]
       """),
    ),
]
