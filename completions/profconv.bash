# SPDX-License-Identifier: BSD-2-Clause
# bash completion for profconv.  The commands, options, formats and
# compressions come from `profconv --help`, so they are those of the
# installed program.  Installed as
# /usr/share/bash-completion/completions/profconv.

# _profconv_help PROG: profconv --help, once per shell.
_profconv_help()
{
	if [ -z "${_profconv_help_text:-}" ]; then
		_profconv_help_text=$("$1" --help 2>/dev/null)
	fi
	printf '%s\n' "$_profconv_help_text"
}

_profconv()
{
	local cur prev prog help words_list i cmd=""
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=""
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	prog=${COMP_WORDS[0]}
	help=$(_profconv_help "$prog")
	COMPREPLY=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			if printf '%s\n' "$help" | grep -q "^ *\(usage: \)\{0,1\}profconv \(\[options\] \)\{0,1\}${COMP_WORDS[i]}\b"; then
				cmd=${COMP_WORDS[i]}
				break
			fi
			;;
		esac
	done

	case $prev in
	-f | --from)
		words_list=$(printf '%s\n' "$help" | sed -n 's/.*--from FORMAT.*(\([^;)]*\).*/\1/p' | tr -d ',')
		COMPREPLY=($(compgen -W "$words_list" -- "$cur"))
		return 0
		;;
	-t | --to)
		words_list=$(printf '%s\n' "$help" | sed -n 's/.*--to FORMAT.*(\([^;)]*\).*/\1/p' | tr -d ',')
		COMPREPLY=($(compgen -W "$words_list" -- "$cur"))
		return 0
		;;
	--compress)
		words_list=$(printf '%s\n' "$help" | sed -n 's/.*--compress METHOD *\([^(]*\).*/\1/p' | tr -d ',' | sed 's/\bor\b//g')
		COMPREPLY=($(compgen -W "$words_list" -- "$cur"))
		return 0
		;;
	-O | --output-dir | --symbol-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0
		;;
	--jobs | --shard | --max-memory | --timeout | --expect | --process-start-ns | --start-time-ms | --interval-ms)
		return 0
		;;
	esac
	# an option of a format ("--key ARG") takes a value: choices from the help
	if [[ $prev == --* ]]; then
		words_list=$(printf '%s\n' "$help" | sed -n "s/^ *${prev} [A-Z][A-Z]* *\([a-z0-9|]*\):.*/\1/p" | tr '|' ' ')
		if [ -n "$words_list" ]; then
			COMPREPLY=($(compgen -W "$words_list" -- "$cur"))
			return 0
		fi
	fi

	if [[ $cur == -* ]]; then
		words_list=$(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
		words_list="$words_list $(printf '%s\n' "$help" | sed -n 's/^  \(-[a-zA-Z]\), --.*/\1/p')"
		COMPREPLY=($(compgen -W "$words_list" -- "$cur"))
		return 0
	fi
	if [ -z "$cmd" ]; then
		words_list=$(printf '%s\n' "$help" | sed -n 's/^ *\(usage: \)\{0,1\}profconv \(\[options\] \)\{0,1\}\([a-z][a-z-]*\).*/\3/p' | sort -u)
		COMPREPLY=($(compgen -W "$words_list" -- "$cur"))
	elif [ "$cmd" = report ] && [ "$prev" = report ]; then
		COMPREPLY=($(compgen -W merge -- "$cur"))
		return 0
	fi
	COMPREPLY+=($(compgen -f -- "$cur"))
	return 0
}
complete -o filenames -F _profconv profconv
