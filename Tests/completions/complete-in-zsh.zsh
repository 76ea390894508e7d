# zsh -f complete-in-zsh.zsh FPATH_DIR OUT LINE…: types each LINE and a TAB into an interactive
# zsh on a pseudo-terminal (zpty), with the completion functions of FPATH_DIR loaded by
# compinit, then ^X, bound to a widget that appends the command line the completion left to OUT
# and clears it. What a user gets at the prompt, through zsh's own completion system.
zmodload zsh/zpty
dir=$1 out=$2
shift 2
: >| $out
zpty -b completion zsh -f -i
zpty -w completion "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w completion "dump() { print -r -- \"\$BUFFER\" >> ${(q)out}; BUFFER=''; }; zle -N dump; bindkey '^X' dump"
typeset -i n=0
for line in "$@"; do
  zpty -w -n completion "$line"$'\t\x18'
  (( n++ ))
  # Wait for the line (at most 5 s), reading what the shell prints so that it never blocks.
  for i in {1..100}; do
    (( $(wc -l < $out) >= n )) && break
    zpty -r -t completion junk
    sleep 0.05
  done
done
zpty -d completion
