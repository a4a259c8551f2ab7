import sys

from convert import convert


def main(argv):
    value, src, dst = argv
    print(convert(float(value), src, dst))


if __name__ == "__main__":
    main(sys.argv[1:])
