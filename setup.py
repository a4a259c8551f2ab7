"""Maps the top-level folders onto the ``codegym`` import package (docs/contract.md, Layout)."""

from setuptools import find_namespace_packages, setup

ROOTS = {
    "codegym": "codegym",
    "codegym.envs": "envs",
    "codegym.learner": "learner",
    "codegym.wrappers": "wrappers",
    "codegym.assets": "assets",
}

packages, package_dir = [], {}
for name, folder in ROOTS.items():
    package_dir[name] = folder
    packages.append(name)
    if name != "codegym.assets":  # assets are data (their sample repos hold .py files too)
        packages += [f"{name}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]

setup(packages=packages, package_dir=package_dir, package_data={"codegym.assets": ["**/*"]})
