set -e
git init -q -b main repo
cd repo
printf 'a\n' > a.txt && git add . && git commit -q -m 'a'
git checkout -q -b feature
printf 'f\n' > feature.txt && git add . && git commit -q -m 'feature work'
git checkout -q main
printf 'b\n' > b.txt && git add . && git commit -q -m 'b on main'
