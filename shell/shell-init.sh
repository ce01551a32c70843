# shellcheck shell=bash
# The body of `touchgate shell-init bash|zsh` (shell/shell-init.sh in touchgate's source tree,
# embedded in the binary at build time). Before it, the generated snippet sets
# __touchgate_binary and __touchgate_options: the touchgate that generated it and the options
# it baked in. Both bash and zsh read it.
#
# It does not lock anything itself: it replaces this interactive shell, at once, with
# `touchgate shell`, the terminal owner, running the same shell on a terminal of its own. From
# then on the owner holds the terminal: a locked session runs nothing typed at it and shows
# nothing, whatever runs in it. Inside tmux (the tmux integration's client lock is the lock there),
# inside an owner already (TOUCHGATE_SHELL_SESSION), without a terminal, and with a terminal that is
# not the controlling one (/dev/tty does not open: `su USER -c 'bash -i'` starts the shell in a
# session of its own) it does nothing: there `touchgate shell` runs the shell directly, which
# would read this file again, for ever.
#
# Its limit: it runs only if the rc file gets to it. A Ctrl-C while the lines before it run (the
# system's /etc/bash.bashrc or /etc/zsh/zshrc) makes the shell abandon the rc file, and that
# shell starts without the owner. Put it first in the rc file; better, start `touchgate shell`
# as the terminal's command or as the login shell (touchgate-login-shell), which nothing cuts short.
# shellcheck disable=SC2154 # __touchgate_binary and __touchgate_options: set by the lines before this file
if [[ $- == *i* && -t 0 && -t 1 && -z ${TMUX-} && -z ${TOUCHGATE_SHELL_SESSION-} ]] && { : </dev/tty; } 2>/dev/null; then
    # From here Ctrl-C and Ctrl-\ cannot stop the start (bash: Ctrl-Z neither; zsh refuses to
    # trap it while job control is on); touchgate ignores them too from its first instruction.
    trap '' INT QUIT
    if [[ -n ${BASH_VERSION-} ]]; then trap '' TSTP; fi
    __touchgate_shell=$(readlink "/proc/$$/exe" 2>/dev/null)
    if [[ -n $__touchgate_shell && -x $__touchgate_binary ]]; then
        exec "$__touchgate_binary" "${__touchgate_options[@]}" shell -- "$__touchgate_shell" -i
    fi
    trap - INT QUIT
    if [[ -n ${BASH_VERSION-} ]]; then trap - TSTP; fi
    printf 'touchgate: cannot start %s shell: this shell is not locked\n' "$__touchgate_binary" >&2
fi
unset __touchgate_binary __touchgate_options __touchgate_shell
