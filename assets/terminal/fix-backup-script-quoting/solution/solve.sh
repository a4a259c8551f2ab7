#!/bin/bash
set -e
cat > backup.sh <<'EOF'
#!/bin/bash
# Copies every file of src/ into backup/, keeping names.
mkdir -p backup
for f in src/*; do
    cp -- "$f" "backup/$(basename "$f")"
done
EOF
bash backup.sh
