#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# completion_test.sh - the bash and zsh completions (completions/) complete
# what `profconv --help` lists: commands, long options, -f/-t formats,
# --compress methods, a format option's choices, report's merge.  bash runs
# the completion function as bash-completion would; zsh (when installed) runs
# it with the completion system's builtins replaced by printing stand-ins.
#
# usage: completion_test.sh PROFCONV SOURCE_DIR
set -u
PC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
S=$2
fail() {
	echo "FAIL: completion: $*" >&2
	exit 1
}
# bcomp WORDS...: the candidates bash offers for the last word
bcomp() {
	bash -c '
. "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
_profconv
printf "%s\n" "${COMPREPLY[@]}"' bcomp "$S/completions/profconv.bash" "$PC" "$@"
}
# zcomp WORDS...: the candidates zsh offers, compadd and _describe printing
zcomp() {
	zsh -f -c '
compadd() { local a; while [[ $1 == -* ]]; do if [[ $1 == -a ]]; then print -l -- ${(P)2}; return; fi; shift; done; print -l -- "$@"; }
_describe() { print -l -- ${(P)${@[-1]}}; }
_files() { :; }
_message() { :; }
_call_program() { shift; "$@"; }
src=$1; shift
words=("$@"); CURRENT=$#
source "$src"' zcomp "$S/completions/_profconv" "$PC" "$@"
}
expect() { # expect SHELL WANT WORDS...: WANT is among the candidates
	sh=$1
	want=$2
	shift 2
	got=$($sh "$@") || fail "$sh $*: failed"
	printf '%s\n' "$got" | grep -qx -- "$want" || fail "$sh completion of '$*' lacks '$want': $(echo $got)"
}
refuse() { # refuse SHELL NOT WORDS...: NOT is not among the candidates
	sh=$1
	not=$2
	shift 2
	got=$($sh "$@")
	printf '%s\n' "$got" | grep -qx -- "$not" && fail "$sh completion of '$*' offers '$not': $(echo $got)"
	return 0
}
for c in bcomp zcomp; do
	if [ $c = zcomp ]; then
		command -v zsh >/dev/null 2>&1 || {
			echo "completion: zsh not installed; zsh completion not run"
			break
		}
		zsh -n "$S/completions/_profconv" || fail "zsh -n completions/_profconv"
	fi
	expect $c gecko-dump gec
	expect $c symbolicate sym
	expect $c report rep
	expect $c --output --out
	expect $c --output-dir --out
	expect $c --no-host-symbols --no-h
	expect $c --processed-version --proc
	expect $c --expect --exp
	expect $c gecko-buffer -f ""
	expect $c perf -f ""
	expect $c gecko --to g
	refuse $c perf --to ""
	expect $c zstd --compress z
done
# bash only: a format option's choices, and report's one subcommand
expect bcomp period --weight p
expect bcomp merge report ""
exit 0
