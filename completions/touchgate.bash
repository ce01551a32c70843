# Placeholder, replaced by scripts/generate-docs (bash completion generated from the CLI's command table).
_touchgate() {
    local word=${COMP_WORDS[COMP_CWORD]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        mapfile -t COMPREPLY < <(compgen -W "status enable disable enroll unenroll auth can-evaluate reset config log event gate watch tmux-conf shell-init demo version help" -- "$word")
    fi
}
complete -F _touchgate touchgate
