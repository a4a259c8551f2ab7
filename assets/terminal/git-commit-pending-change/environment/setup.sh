set -e
git init -q -b main repo
cd repo
printf 'Helo world\n' > greeting.txt
printf 'notes\n' > notes.txt
git add . && git commit -q -m 'Initial commit'
printf 'Hello world\n' > greeting.txt
