"""Validates config.json: python app.py --check exits 0 when the config is usable."""
import json
import sys


def check(path="config.json"):
    with open(path) as f:
        cfg = json.load(f)
    assert isinstance(cfg["port"], int) and 1 <= cfg["port"] <= 65535, "port must be an int in 1..65535"
    assert cfg["mode"] in ("dev", "prod"), "mode must be dev or prod"
    assert isinstance(cfg["workers"], int) and cfg["workers"] > 0, "workers must be a positive int"
    return cfg


if __name__ == "__main__":
    try:
        check()
    except Exception as exc:  # report any problem and fail
        print(f"bad config: {exc!r}")
        sys.exit(1)
    print("config ok")
