set -e
git init -q -b main repo
cd repo
mkdir config
printf 'debug: false\nport: 8080\n' > config/settings.yaml
printf 'x\n' > x.txt
git add . && git commit -q -m 'add settings'
git rm -q config/settings.yaml && git commit -q -m 'cleanup'
