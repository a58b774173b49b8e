#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: the libFuzzer target with the infrastructure's
# compiler, sanitizer flags ($CFLAGS/$CXXFLAGS) and engine ($LIB_FUZZING_ENGINE), and the
# suite's scenarios as the seed corpus (docs/fuzzing.md, "Beyond one machine").
cd "$SRC/satasim"
cmake -S . -B build-oss-fuzz -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSATASIM_WERROR=OFF \
  -DSATASIM_FUZZ_TARGET=libfuzzer -DSATASIM_FUZZ_ENGINE_LINK="$LIB_FUZZING_ENGINE" \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib'  # CMake escapes it; in the linker flags the shell ate $ORIGIN
cmake --build build-oss-fuzz --target satasim_fuzz_libfuzzer satasim
cp build-oss-fuzz/bin/satasim_fuzz_libfuzzer "$OUT/"
# the runner image has no SystemC or yaml-cpp: their shared libraries go along ($ORIGIN/lib)
mkdir -p "$OUT/lib"
ldd build-oss-fuzz/bin/satasim_fuzz_libfuzzer | awk '/libsystemc|libyaml-cpp/ {print $3}' | xargs -r cp -t "$OUT/lib"
# the seed corpus: every systemc scenario of the suite, encoded
python3 tools/fuzz seeds "$WORK/seeds" --satasim build-oss-fuzz/bin/satasim
(cd "$WORK/seeds" && zip -q "$OUT/satasim_fuzz_libfuzzer_seed_corpus.zip" ./*.bin)
