set -e
mkdir -p build/inner/deep
printf 'payload-%s\n' $(seq 1 500) > build/inner/deep/payload.bin
printf 'decoy\n' > build/payload.txt
tar -czf bundle.tar.gz -C build .
rm -rf build
