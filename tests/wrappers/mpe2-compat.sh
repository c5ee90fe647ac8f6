#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What MPE2 users did still works: a CLOG2 written from a log whose
# colours are MPE1 "colour:pattern" keeps them; libmpe_nompi installed
# into a prefix is found by programs built from its pkg-config file or
# by MPE2's own link line plus the run-time path `make install` tells
# about (MPE2 installed static archives; these are shared).
. "$top_srcdir/tests/common/tap.sh"
clogtool=$top_builddir/clogtool
data=$top_srcdir/tests/interop/data

# Colour patterns: MPE2's fpilog.clog has "green:light_gray".
patterns () { grep -a -o -e 'green:light_gray' -e 'yellow:dimple3' "$1" | sort -u | wc -l; }
"$clogtool" convert -q "$data/fpilog.clog" "$tap_tmp/f.clog2" 2> "$tap_tmp/err"
ok $? "convert fpilog.clog to CLOG2"
test "$(patterns "$tap_tmp/f.clog2")" -eq 2; ok $? "CLOG2 keeps the colour patterns as written"
"$clogtool" convert -q "$data/fpilog.clog" "$tap_tmp/f.clog" 2> "$tap_tmp/err" &&
  "$clogtool" convert -q "$tap_tmp/f.clog" "$tap_tmp/g.clog2" 2>> "$tap_tmp/err"
ok $? "convert fpilog.clog to .clog, then to CLOG2"
test "$(patterns "$tap_tmp/g.clog2")" -eq 2; ok $? "the patterns survive a .clog in between"

# libmpe_nompi (with liblogfmt, which it needs), its headers and its .pc
# file installed into the configured prefix, where the libraries' own
# run-time paths point: only when that prefix is this build's scratch
# one (scripts/setup's $builddir/inst), never a real one.
pc=$top_builddir/mpe/mpe_nompi.pc
P=$(sed -n 's/^prefix=//p' "$pc")
case $P/ in
  "$(cd "$top_builddir" && pwd -P)"/*|"$top_builddir"/*) ;;
  *) diag "prefix $P is not inside the build tree: install not tried"; finish ;;
esac
test "$(sed -n 's/^libdir=//p' "$pc")" = '${exec_prefix}/lib' || {
  diag "libdir is not \${exec_prefix}/lib: install not tried"; finish; }
mkdir -p "$P/lib/pkgconfig" "$P/include"
for la in logfmt/liblogfmt.la mpe/libmpe_nompi.la; do
  "$top_builddir/libtool" --mode=install install -c "$top_builddir/$la" \
    "$P/lib/" > "$tap_tmp/inst" 2>&1
  ok $? "$la installs into $P/lib" || sed 's/^/#   /' "$tap_tmp/inst"
done
cp "$top_srcdir"/mpe/include/*.h "$P/include/" && cp "$pc" "$P/lib/pkgconfig/"
ok $? "headers and mpe_nompi.pc installed"
unset LD_LIBRARY_PATH
prog=$top_srcdir/tests/mpe/nompi.c   # #error if mpi.h gets included
CC=${CC:-cc}
if command -v pkg-config > /dev/null; then
  flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs \
          mpe_nompi)
  ok $? "pkg-config knows mpe_nompi"
  case " $flags " in *" -DCLOG_NOMPI "*) r=0 ;; *) r=1 ;; esac
  ok $r "its Cflags carry -DCLOG_NOMPI" || diag "$flags"
  $CC -o "$tap_tmp/p1" "$prog" $flags > "$tap_tmp/cc" 2>&1
  ok $? "a serial MPE program builds with pkg-config mpe_nompi" || sed 's/^/#   /' "$tap_tmp/cc"
  (cd "$tap_tmp" && ./p1 pc > out 2>&1) && test -s "$tap_tmp/pc.clog"
  ok $? "it starts without LD_LIBRARY_PATH and writes its log" || sed 's/^/#   /' "$tap_tmp/out"
fi
# mk ARGS: a make of its own, not a child of the make running the tests
# (whose flags would add its jobserver's notes to the output).
mk () {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"
}
# MPE2's link line, with the run-time path make install asks for.
msg=$(mk -C "$top_builddir" install-exec-hook 2>&1)
case $msg in *"-Wl,-rpath,$P/lib"*) r=0 ;; *) r=1 ;; esac
ok $r "make install names the run-time path a link line needs" || diag "$msg"
msg=$(mk -C "$top_builddir" install-exec-hook libdir="$P/lib" DESTDIR=/x 2>&1)
test -z "$msg"; ok $? "a staged install (DESTDIR) says nothing" || diag "$msg"
# A directory the loader is configured for: its cache is refreshed (a
# stand-in ldconfig records what it is asked).
mkdir -p "$tap_tmp/bin"
cat > "$tap_tmp/bin/ldconfig" <<EOS
#!/bin/sh
case "\$*" in
  "-v -N") echo "/fake/lib: (from /etc/ld.so.conf.d/fake.conf:1)" ;;
  *) echo "ldconfig \$*" >> "$tap_tmp/ldconfig.calls" ;;
esac
EOS
chmod +x "$tap_tmp/bin/ldconfig"
msg=$(PATH=$tap_tmp/bin:$PATH mk -C "$top_builddir" install-exec-hook libdir=/fake/lib 2>&1)
if [ "$(id -u)" = 0 ]; then
  test -s "$tap_tmp/ldconfig.calls" && test -z "$msg"
  ok $? "as root into a loader directory, make install runs ldconfig" || diag "$msg"
else
  case $msg in *"run ldconfig as root"*) r=0 ;; *) r=1 ;; esac
  ok $r "into a loader directory, make install asks for ldconfig" || diag "$msg"
fi
$CC -DCLOG_NOMPI -I"$P/include" -o "$tap_tmp/p2" "$prog" -L"$P/lib" \
  -Wl,-rpath,"$P/lib" -lmpe_nompi > "$tap_tmp/cc" 2>&1
ok $? "MPE2's link line (cc -DCLOG_NOMPI -I... -L... -lmpe_nompi) builds" || sed 's/^/#   /' "$tap_tmp/cc"
(cd "$tap_tmp" && ./p2 plain > out 2>&1) && test -s "$tap_tmp/plain.clog"
ok $? "it starts without LD_LIBRARY_PATH and writes its log" || sed 's/^/#   /' "$tap_tmp/out"
finish
