/// The hand-written sections of touchgate(1), in roff: what the command table cannot say.
///
/// ``CommandTable/manPage`` puts them between the generated sections. Each is one `.SH` with
/// its text; the drift test (`DocumentationTests`) checks that CONFIGURATION names every
/// `Configuration.Key`.
enum ManPageSections {
    static let description = #"""
        .SH DESCRIPTION
        .B touchgate
        brings the iOS "unlock with Touch ID" app lock to terminal sessions.
        An iOS app with the lock on covers itself when it goes to the background and,
        when it
        becomes active again, asks for the fingerprint, falling back to the device
        passcode.
        .B touchgate
        does the same for a tmux or shell session: when you come back to it, it covers
        the terminal
        and asks for your biometric factor (whatever PAM stack the administrator puts
        behind the
        .B touchgate\-biometric
        service: a fingerprint reader, a security key) and falls back to your account
        password (the
        .B touchgate
        service).
        .PP
        Every evaluation ends in success or one outcome with the codes of Apple's
        LAError.
        Two policies exist:
        .B device\-owner
        (the biometric factor first, if it is available, enrolled and not locked out,
        then the
        passcode; an empty answer at the biometric prompt is the fallback) and
        .B biometrics
        (the biometric factor only).
        Each try is counted in the store, on the disk, before PAM sees it.
        .PP
        The store is an SQLite file holding the toggle, the enrollment, the lockout
        counters, the
        session states and an audit log, per user.
        Its schema is compiled into the binary.
        .PP
        .B touchgate tmux\-conf
        and
        .B touchgate shell\-init
        print the integrations; load them as
        .B EXAMPLES
        shows.
        They bake in
        .BR \-\-store ,
        .BR \-\-store\-id ,
        .B \-\-user
        and
        .B \-\-pam\-confdir
        from the environment they are generated in, and say so in their first comment
        lines:
        generate them again after changing those.

        """#

    static let configuration = #"""
        .SH CONFIGURATION
        Settings belong to one user
        .RB ( \-\-user ,
        else
        .BR TOUCHGATE_USER ,
        else the invoking user): each user of a store has their own, and a user never
        configured
        has the defaults.
        .B touchgate config get
        prints them,
        .B touchgate config set
        .I KEY VALUE
        changes one.
        A bad value exits 65 and changes nothing.
        While the user's lock is on, a change that weakens it needs that user's
        device\-owner
        success first (what weakens is said for each key).
        .TP
        .B max\-biometric\-failures
        1 to 100, default 5: consecutive biometric failures before the biometric
        factor is locked
        out (biometryLockout); only a passcode success or
        .B reset
        clears it.
        Weakening: raising it.
        .TP
        .B biometric\-tries\-per\-evaluation
        1 to 10, default 3: biometric tries in one evaluation before it falls back to
        the passcode
        (device\-owner) or fails (biometrics).
        Weakening: raising it.
        .TP
        .B passcode\-delays
        1 to 32 comma\-separated seconds, 0 to 86400 each, default
        0,0,0,0,0,60,300,900,3600:
        after N consecutive passcode failures the next attempt waits entry N (the last
        entry
        repeats), counted from the latest failure.
        While a delay runs the answer is authenticationFailed with retryAfterSeconds,
        and PAM is
        not called.
        Weakening: any shorter wait.
        .TP
        .B grace\-seconds
        0 to 86400, default 0: a session back from the background within this time is
        not locked.
        Weakening: raising it.
        .TP
        .B reuse\-seconds
        0 to 300, default 0: a success within this time is reused without asking.
        Weakening: raising it.
        .TP
        .B idle\-seconds
        0 to 604800, default 0 (off): a command typed after this long idle at a shell
        prompt counts
        as a return from the background.
        Weakening: turning it off or raising it.
        .TP
        .B passcode\-service
        a PAM service name, default
        .BR touchgate .
        Weakening: any change.
        .TP
        .B biometric\-service
        a PAM service name, or empty for none, default
        .BR touchgate\-biometric .
        A service file that does not exist is biometryNotAvailable, never a password
        prompt.
        Weakening: any change but turning it off.
        .TP
        .B log\-retention
        10 to 1000000, default 1000: audit entries kept for the user (the newest).
        Weakening: lowering it (it erases the record).
        .PP
        A store made by an older touchgate (one set of settings for the whole store)
        gives its
        values to every user it knew when it is upgraded; users it meets later start
        from the
        defaults.
        .PP
        The store stays bounded: each write that adds an audit entry deletes the
        user's entries
        beyond
        .BR log\-retention ,
        except pending ones younger than 30 days; each session write deletes sessions
        that ended
        or were not changed for 30 days, and each tmux attach forgets clients not seen
        for 30 days.
        A session the store no longer knows is treated as locked while the lock is on.

        """#

    static let lifecycle = #"""
        .SH LIFECYCLE
        Each terminal session has a lifecycle with iOS's states (notRunning, inactive,
        active,
        background) and events, which
        .B touchgate event
        records and the integrations send:
        .TP
        .B did\-finish\-launching
        any state to inactive (locked, while the lock is on); the session starts afresh.
        .TP
        .B did\-become\-active
        inactive to active.
        .TP
        .B will\-resign\-active
        active to inactive.
        .TP
        .B did\-enter\-background
        inactive to background: locked at once when grace\-seconds is 0; a waiting
        evaluation for
        the session ends with appCancel.
        .TP
        .B will\-enter\-foreground
        background to inactive, locked if away for grace\-seconds or more.
        .TP
        .B will\-terminate
        inactive, active or background to notRunning.
        .PP
        Any other event exits 65 and the stored state does not change.
        Nothing but a successful evaluation unlocks a locked session: no event,
        cancel, signal,
        store error or second prompt.
        .PP
        .B touchgate gate
        runs on every tmux attach and before every shell prompt.
        Its fast path (lock off, or the session active and unlocked) only reads the
        store and
        exits 0.
        A locked session gets the terminal's alternate screen, cleared, with the user,
        host,
        session, attempts left and any countdown; the gate asks the biometric factor,
        then the
        passcode, and loops until a success.
        While it holds the terminal, Ctrl\-C, Ctrl\-\e and Ctrl\-Z only cancel the
        typed line.
        .PP
        The session id
        .RB ( \-\-session )
        defaults to
        .BR TOUCHGATE_SESSION ,
        else the tmux session when inside tmux, else the controlling terminal's path;
        the bash and
        zsh integration passes a session of each shell's own.
        .PP
        .B touchgate watch
        follows logind on the system bus: a suspend or a screen lock sends every
        session of the
        user to the background, locked, and locks the clients of their tmux servers
        before the
        machine may sleep.

        """#

    static let security = #"""
        .SH SECURITY MODEL
        The person at the keyboard of a session you left is inside the threat model:
        they can only
        type into the gate, and nothing but a successful evaluation shows the session
        (no key,
        signal, killed gate, damaged store or PAM error).
        Guesses are counted on the disk before PAM sees them; secrets never reach the
        store, a log
        or a message; text from PAM modules cannot drive the terminal.
        A process already running as you is outside it: it can read your store or end
        the gate's
        loop, as it can do anything you can.
        The full model and every property: docs/security.md in the source tree.

        """#

    static let exitStatusNotes = #"""
        .PP
        Every error is one line on standard error naming the problem; a usage error
        (64) also
        prints the command's usage line.
        With
        .BR \-\-json ,
        standard output also gets
        \fB{"error": "...", "exitCode": N}\fR for every error, usage errors included.

        """#

    static let environment = #"""
        .SH ENVIRONMENT
        .TP
        .B TOUCHGATE_STORE
        the store, when
        .B \-\-store
        is not given.
        .TP
        .B TOUCHGATE_USER
        the user, when
        .B \-\-user
        is not given.
        .TP
        .B TOUCHGATE_PAM_CONFDIR
        the directory of PAM service files, when
        .B \-\-pam\-confdir
        is not given.
        .TP
        .B TOUCHGATE_SESSION
        the session id, when
        .B \-\-session
        is not given.
        .TP
        .B TOUCHGATE_HOOK_STORE
        set by the integrations to the store their hooks read; a command that creates
        a new store
        elsewhere says so.
        .TP
        .BR XDG_STATE_HOME ", " HOME
        where the default store lives.
        .TP
        .BR TMUX
        inside tmux: the tmux session is the default session.
        .TP
        .BR SSH_CONNECTION ", " SSH_CLIENT ", " SSH_TTY
        a remote session: the biometric factor is not available, the passcode is
        asked, and the
        stacks get the client's address as PAM_RHOST.
        .TP
        .B DBUS_SYSTEM_BUS_ADDRESS
        the system bus
        .B touchgate watch
        listens to.

        """#

    static let files = #"""
        .SH FILES
        .TP
        .I $XDG_STATE_HOME/touchgate/touchgate.sqlite
        the default store (else
        .IR ~/.local/state/touchgate/touchgate.sqlite ),
        created 0600 in a 0700 directory.
        .TP
        .I /etc/pam.d/touchgate
        the passcode service (the account password through common\-auth).
        .TP
        .I /etc/pam.d/touchgate\-biometric
        the biometric service (pam_fprintd with max\-tries=1 as shipped).
        .TP
        .I STORE.watch\-USER
        beside the store: the lock and pid of the running
        .BR "touchgate watch" .
        .TP
        .I ~/.config/systemd/user/touchgate\-watch.service
        the watcher's user unit, as
        .B touchgate watch \-\-unit
        prints it.

        """#

    static let examples = #"""
        .SH EXAMPLES
        Turn the lock on and enroll the biometric factor:
        .PP
        .RS
        .nf
        touchgate enable
        touchgate enroll
        .fi
        .RE
        .PP
        The tmux integration:
        .PP
        .RS
        .nf
        touchgate tmux\-conf > ~/.tmux\-touchgate.conf
        echo \(aqsource\-file ~/.tmux\-touchgate.conf\(aq >> ~/.tmux.conf
        .fi
        .RE
        .PP
        The bash integration (zsh: the same with zsh), loaded last in the rc file:
        .PP
        .RS
        .nf
        mkdir \-p ~/.config/touchgate
        touchgate shell\-init bash > ~/.config/touchgate/init.bash
        echo \(aqsource ~/.config/touchgate/init.bash\(aq >> ~/.bashrc
        .fi
        .RE
        .PP
        One evaluation with the biometric factor only, its outcome as JSON:
        .PP
        .RS
        .nf
        touchgate \-\-json auth \-\-policy biometrics
        .fi
        .RE
        .PP
        Lock a session returning from the background after five minutes:
        .PP
        .RS
        .nf
        touchgate config set grace\-seconds 300
        .fi
        .RE

        """#

    static let seeAlso = #"""
        .SH SEE ALSO
        .BR pam (8),
        .BR pam.d (5),
        .BR tmux (1),
        .BR fprintd\-enroll (1)

        """#
}
