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
        .B passcode\-tries\-per\-evaluation
        1 to 10, default 3: passcode answers in one evaluation before it fails with
        authenticationFailed (each wrong one is counted, as
        .B passcode\-delays
        says).
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

    static let policies = #"""
        .SH POLICIES AND COUNTING
        .TP
        .B device\-owner
        (deviceOwnerAuthentication): the biometric factor first, if it is available,
        enrolled and not locked out, then the passcode.
        An empty answer at the biometric prompt is the fallback button and switches to
        the passcode; so does running out of biometric tries.
        Up to 3 passcode answers per evaluation.
        .TP
        .B biometrics
        (deviceOwnerAuthenticationWithBiometrics): the biometric factor only;
        .B biometric\-tries\-per\-evaluation
        tries (default 3), then authenticationFailed.
        .PP
        Each try is counted in the store, on the disk, before PAM sees it, so however
        many processes try at once, or however a process is killed, no more tries than
        allowed reach PAM; a try that never handed a secret to PAM is taken back.
        .PP
        Passcode failures are throttled by
        .B passcode\-delays
        (default 0,0,0,0,0,60,300,900,3600): after N consecutive failures the next
        attempt waits entry N seconds (the last entry repeats), counted from the latest
        failure: the iOS schedule, five free tries, then 1 min, 5 min, 15 min, 1 h.
        While a delay runs the answer is authenticationFailed with retryAfterSeconds and
        PAM is not called.
        A passcode success clears both the passcode and the biometric counters.
        .PP
        Any PAM status other than success and the few that mean "unavailable" or
        "unknown user" (PAM_AUTH_ERR, PAM_MAXTRIES, PAM_SYSTEM_ERR, ...) counts as a
        failed try: a broken stack never unlocks.
        A passcode stack that accepts no secret at all (pam_permit, nullok with an
        empty password) is passcodeNotSet, never a success.
        A biometric service file that does not exist is biometryNotAvailable:
        .B touchgate
        looks for the file itself, so libpam's fallback to the
        .B other
        service can never turn a missing factor into a password prompt.
        .PP
        If the store cannot be read or written, no credential is checked: exit 74
        (the gate alone still asks for the passcode, see
        .BR LIFECYCLE ).

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
        any state to inactive (locked, while the lock is on); from a state other than
        notRunning the session starts afresh.
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
        Any other event exits 65 naming the state and the event, and the stored state
        does not change.
        Nothing but a successful evaluation unlocks a locked session: no event,
        cancel, signal,
        store error or second prompt.
        A launch is valid in every state because it is a new process: a row that is
        not notRunning can only be left by one that died without will\-terminate
        (exec, SIGKILL, a crash, a tmux server gone, whose tmux\-<pid>\-$N a new server
        reuses), and refusing the launch would let the new process inherit that
        state, unlocked.
        .PP
        The session id
        .RB ( \-\-session )
        defaults to
        .BR TOUCHGATE_SESSION ,
        else the tmux session when inside tmux, else the controlling terminal's path;
        .B touchgate shell
        gives each run a session of its own.
        .SS The gate
        .B touchgate gate
        runs on every tmux attach and whenever
        .B touchgate shell
        covers its terminal.
        Its fast path (lock off, or the session active and unlocked) only reads the
        store and
        exits 0.
        While the lock is on, a session the store does not know, or one that is
        notRunning (its launch was never recorded: the event failed, or nothing sent
        it), is locked: the gate records its launch and asks (if that write fails, the
        passcode\-only mode below applies).
        .PP
        A locked session gets the terminal's alternate screen, cleared (nothing of the
        session stays visible), with the user, host, the session as the user knows it
        (the tmux session's name, or the terminal of a shell), biometric attempts left,
        passcode attempts left before a wait (once one was wrong), any lockout or
        throttling countdown, and how to fall back to the passcode.
        Each wrong try says so with what is left, and the cover is drawn again with the
        attempts left; once a countdown ends the cover says "The wait is over: type the
        passcode."
        The gate asks the biometric factor first, then the passcode, and loops until a
        success, then unlocks the session, restores the screen and exits 0.
        .PP
        While it holds the terminal, ISIG, echo and canonical input are off and SIGINT,
        SIGQUIT and SIGTSTP are ignored (tmux unlocks a client whenever its
        lock\-command exits); the gate edits the line itself (Backspace, Ctrl\-U,
        Ctrl\-W, Enter).
        Ctrl\-C, Ctrl\-\e or Ctrl\-Z cancel the line at once, the cover says
        "Cancelled; the session stays locked. Type again.", and the gate asks again; so
        does end of input (Ctrl\-D on an empty line).
        A wait ended from outside says what sent the session away instead: "The screen
        was locked (logind Lock)", "The machine went to sleep" (the watcher), or "The
        session was sent to the background (did\-enter\-background)".
        What is typed while PAM runs or a countdown runs never shows, and each prompt
        discards what was typed before it.
        A passcode stack that is missing is named on the cover, and the gate looks
        again when Enter is pressed.
        .PP
        SIGHUP, or the terminal hanging up, and SIGTERM exit 4 (logged systemCancel),
        the session still locked; the integrations then start the gate again (see
        .BR INTEGRATIONS ),
        so killing the gate never shows the session.
        With
        .BR \-S ,
        end of input exits 2, a did\-enter\-background exits 9, and throttling exits 1.
        .PP
        A second gate for a session whose prompt owner is alive waits instead of
        prompting, and ends when that one unlocks; a dead owner's claim is cleaned up.
        If the store cannot be read, the gate still asks for the passcode through PAM
        (throttled in memory) and says so; it never opens without it.
        .PP
        .B \-\-lock
        marks a lock request (tmux's lock\-command): the session is locked unless it is
        returning from the background within the grace period.
        .B \-\-idle\-since
        .I EPOCH
        (for callers that measure idle time themselves) treats an idle time of
        idle\-seconds or more as a trip to the background that began then.

        """#

    static let integrations = #"""
        .SH INTEGRATIONS
        .SS tmux
        .B touchgate tmux\-conf
        prints a snippet for
        .IR ~/.tmux.conf .
        It sets focus\-events on (needed for the focus hooks; the outer terminal must
        report focus), lock\-after\-time 900 (the idle lock), a fallback lock\-command,
        and hooks.
        A new session starts locked while the lock is on; every attach, new\-session
        and switch\-client locks the client before it draws anything, and the gate
        decides (it exits at once when the session may be shown); detaching sends the
        session to the background; focus out and in are will\-resign\-active and
        did\-become\-active.
        tmux shows the session as soon as its lock\-command exits, so the
        lock\-command runs the gate again until it unlocks: killing the gate never
        shows the session.
        A tmux server that already runs reads the snippet only when told to:
        .BR "tmux source\-file ~/.tmux.conf" .
        .PP
        Control\-mode clients (tmux \-C, \-CC as iTerm2 uses) cannot be locked: tmux
        skips them in lock\-client, lock\-session and lock\-server (they have no
        terminal of their own to run the lock\-command in), so the gate can never cover
        them.
        The snippet therefore detaches a control\-mode client when it gets a session
        unless
        .B touchgate \-\-json status
        says the lock is off (an unreadable store also detaches it).
        A control client attached while the lock was off is not detached when the lock
        is turned on later; reattach it, or do not use control mode with the lock on.
        .PP
        A lock of a session locks every client of it: a gate that finds a tmux session
        locked (a pane's idle lock, a lock\-client, an attach that needs an unlock) runs
        .BR "tmux lock\-session" ,
        and nothing of a locked session is drawn on a client, whether it attaches
        (\-r, \-d), creates a session (new \-A, new \-t, a grouped session) or
        switches.
        When two gates want one session's prompt, one asks and the other says
        "Another terminal is unlocking this session (process N); waiting.";
        Enter at the waiting one takes the prompt over (the other's prompt ends and it
        waits in turn).
        A gate in a tmux pane (behind the session's locked clients) or a process on no
        terminal never keeps a client's gate waiting: the client's gate takes over.
        A session the store never saw (it began before the snippet was loaded) is
        recorded, with its server's socket, at its next attach.
        .PP
        Known limits: every attach shows a blank screen for a moment even when no
        unlock is needed (tmux locks first, then the gate exits); when several clients
        show one session, detaching one of them sends the session to the background
        for all.
        .SS touchgate shell: any other terminal
        .B touchgate shell
        .RB [ \-\-
        .IR "PROGRAM ARGS" ]
        holds the terminal and runs PROGRAM (default: the user's shell from the
        password database, else
        .BR $SHELL ,
        else /bin/sh) on a pseudo\-terminal of its own, relaying keys and output; the
        program's screen is kept by libvterm as it runs.
        Start it as the terminal emulator's command: nothing runs before it.
        Each run is a session of its own, shell\-<pid>\-<16 random hex digits>, which
        the program sees as
        .B TOUCHGATE_SESSION
        and
        .BR TOUCHGATE_SHELL_SESSION ;
        the owner is recorded in the store with its pid and start time.
        .PP
        A new session records did\-finish\-launching and did\-become\-active and, while
        the lock is on, runs the gate before the program starts: Ctrl\-C, Ctrl\-\e and
        Ctrl\-Z are ignored from the owner's first instruction and are plain bytes on
        its terminal, so no key held while the terminal opens gives an unlocked shell.
        The session locks when no key came for
        .B idle\-seconds
        (the cover goes up when the time runs out, not at the next key), when
        .B touchgate watch
        sees a suspend or a screen lock, when a
        .B touchgate event
        leaves the session locked or in the background (the event waits, 3 s at most,
        until the owner answered), and when the terminal hangs up.
        At a lock the owner stops passing keys at once, keeps the program's output off
        the screen (it still reaches the screen model, which answers the program's
        terminal queries meanwhile), blanks the screen and runs
        .B touchgate gate \-\-session ID
        on the terminal, again until it exits 0: a gate that is killed or crashes is
        followed by the cover, "the gate ended without an unlock (exit N); it starts
        again." and a new gate a second later.
        The program keeps running but reads no key.
        After the unlock the owner draws the program's screen back from libvterm as it
        is now (cells, attributes, colours, the cursor, the alternate screen).
        .PP
        The window size follows the terminal (SIGWINCH), also while locked.
        The owner turns on the terminal's focus reports (CSI ? 1004 h): focus out is
        will\-resign\-active, focus in did\-become\-active, as tmux's focus hooks send
        them; a program that asked for the reports itself gets them too.
        Its exit status is the program's (128 + N for a signal N); at its end it
        records will\-resign\-active, did\-enter\-background and will\-terminate.
        A hang\-up of the terminal, or SIGHUP, SIGTERM or SIGKILL of the owner, ends the
        program's session as a terminal close does (SIGHUP), and never shows it.
        The owner starts no process per command or key: only the program and, while
        locked, the gate.
        .PP
        Inside tmux (the tmux integration's client lock is the lock there), inside
        another
        .B touchgate shell
        .RB ( TOUCHGATE_SHELL_SESSION
        set) and without a terminal, it runs the program directly.
        .SS The login shell: ssh and the console
        .B touchgate\-login\-shell
        (installed beside
        .BR touchgate ,
        a link to it) is
        .B touchgate shell
        for
        .BR login (1),
        sshd and su: list it in
        .I /etc/shells
        (the install scripts never edit that file) and
        .B chsh
        to it.
        It runs the shell named by the first line of
        .I ~/.config/touchgate/login\-shell
        (an absolute path that
        .I /etc/shells
        lists; else /bin/bash, else /bin/sh) with its arguments, as a login shell when
        started as one ("\-touchgate\-login\-shell").
        Without a terminal (ssh host command, scp) it runs the command in that shell
        directly.
        .SS bash and zsh: the rc\-file line
        .B touchgate shell\-init bash
        (or
        .BR zsh )
        prints lines for the top of the rc file that replace an interactive shell on a
        terminal, at once, with
        .B touchgate shell
        running the same shell (outside tmux and outside an owner; see
        .IR shell/shell\-init.sh ).
        No shell hook gates a prompt: hooks are not a lock.
        Generate it once into a file and source that file first in the rc file: it
        carries the store's id
        .RB ( \-\-store\-id ),
        so if the store is later deleted, moved or replaced, the owner's gate asks for
        the passcode instead of meeting a new store with the lock off.
        It ignores SIGINT and SIGQUIT (bash also SIGTSTP) from its first line.
        Its limit: a Ctrl\-C while the rc lines before it run (the system's
        /etc/bash.bashrc or /etc/zsh/zshrc) makes the shell abandon the rc file, and
        that shell runs without the owner (docs/security.md); the terminal's command
        and the login shell have no such gap.
        .SS What the snippets bake in
        .B tmux\-conf
        and
        .B shell\-init
        write the options of the environment they are generated in into the commands
        they run: the touchgate binary that generated them (its full path),
        .B \-\-store
        (from
        .B \-\-store
        or
        .BR TOUCHGATE_STORE ,
        made absolute, so every hook reads the same file whatever its current
        directory),
        .B \-\-store\-id
        (the id of that store, read when the snippet is generated; reading it makes the
        store if there is none),
        .B \-\-user
        (from
        .B \-\-user
        or
        .BR TOUCHGATE_USER )
        and
        .B \-\-pam\-confdir
        (from
        .B \-\-pam\-confdir
        or
        .BR TOUCHGATE_PAM_CONFDIR ).
        Each snippet starts with comment lines naming what it baked in and from where,
        what an option it did not bake means (for example "# no \-\-store:
        TOUCHGATE_STORE where it runs, else the default store"), and the command that
        generates it again with the same values.
        Changing those variables, or moving the binary, later does not change a
        snippet: generate it again.
        .PP
        Generating a snippet says on standard error when it made the store ("made a new
        store at PATH (lock off) for this snippet; touchgate enable turns the lock
        on"; the comment line of
        .B \-\-store\-id
        adds "that store was made now, with the lock off"): with
        \fBeval "$(touchgate shell\-init bash)"\fR in the rc file, that is how a shell
        started after the store was deleted shows it.
        Inside a session whose integration reads another store, the message names that
        store too, or says "where this session's integration had its store: that store
        is gone (deleted or moved)" when it stood at the same path.
        A store it cannot read (a directory others can write, a damaged file) leaves
        the snippet without
        .BR \-\-store\-id :
        "the snippet carries no store id: store PATH: ..." on standard error and a
        "# no \-\-store\-id: the store could not be read (...)" comment line; the
        snippet is still printed, and its gate asks for the passcode while the store
        cannot be read.
        .PP
        Commands typed by hand read the current environment, so a
        .B touchgate enable
        run with another
        .B TOUCHGATE_STORE
        would turn on the lock of a store no hook reads.
        The snippets therefore export
        .BR TOUCHGATE_HOOK_STORE ,
        the path of the store their commands read (touchgate shell: in the program's
        environment; tmux\-conf: set\-environment \-g, for new panes).
        A command (the gate included, when run by hand without
        .BR \-\-store\-id )
        that makes a new store while that is set says so on standard error:
        .IP \(bu 2
        at another path: "touchgate: made a new store at PATH (lock off); this
        session's integration reads the store at HOOK\-PATH";
        .IP \(bu 2
        at that same path (the integration's store was deleted or moved): "touchgate:
        made a new store at PATH (lock off) where this session's integration had its
        store: that store is gone (deleted or moved), and the integration does not
        read a new one; generate it again (touchgate tmux\-conf, touchgate
        shell\-init)".
        The hooks carry the old store's id, so their gate refuses the new store and
        asks for the passcode (its cover names the path and the id it expects) until
        the snippet is generated again.
        .PP
        The hooks' own commands never make a store: with
        .BR \-\-store\-id ,
        a missing store is not created.
        .B touchgate status
        shows which store a command reads.

        """#

    static let biometricFactor = #"""
        .SH THE BIOMETRIC FACTOR
        The biometric factor is whatever PAM stack
        .I /etc/pam.d/touchgate\-biometric
        holds.
        The shipped stack is
        .PP
        .RS
        .nf
        auth [success=done default=die] pam_fprintd.so max\-tries=1 timeout=30
        .fi
        .RE
        .PP
        .B max\-tries=1
        because touchgate counts each call of the biometric stack as one try, written to
        the store before the call, and locks the factor out after
        .B max\-biometric\-failures
        wrong ones; with pam_fprintd's default of 3 scans per call, one counted try
        would hold three scans and the lockout would be three times looser than
        configured.
        With one scan per call touchgate's count is the count of wrong scans.
        .B timeout=30
        is how long one try waits for a finger.
        .B fprintd\-enroll
        stores the finger in fprintd (touchgate never sees a print);
        .B touchgate enroll
        then checks the passcode and asks for one matching scan through the stack, and
        only then counts the factor as enrolled.
        When the factor is not available there, enroll says why, in the order it is
        fixed: fprintd is not installed or not running, it finds no device, no finger is
        enrolled in fprintd for the user, or the stack's pam_fprintd module is missing.
        .PP
        How a try of the biometric stack ends:
        .TP
        a matching scan (PAM_SUCCESS)
        success at once.
        .TP
        a finger that does not match (PAM_AUTH_ERR, PAM_MAXTRIES)
        a counted failure; the next try (up to biometric\-tries\-per\-evaluation) waits
        again.
        .TP
        PAM_AUTHINFO_UNAVAIL
        no scan before the timeout, a device error, fprintd stopped or gone, no finger
        of the user enrolled in fprintd, or the reader busy with another evaluation:
        not counted (no finger was checked).
        biometryNotAvailable under
        .BR "\-\-policy biometrics" ;
        under device\-owner the reason is shown ("The biometric factor is not
        available. Use the passcode.") and the passcode asked.
        Never an unlock, and never a wait beyond the stack's own timeout.
        .PP
        While the reader waits, the gate's cover shows the user, host, session and
        "Biometric attempts left: N of M", then the stack's own line (pam_fprintd:
        "Swipe your right index finger across the fingerprint reader", sanitized) and
        "Touch the fingerprint reader, or type your passcode and press Enter (Enter
        alone: the passcode prompt)."
        .B auth
        (device\-owner) shows the same two lines.
        Meanwhile input is non\-canonical with echo off, and:
        .TP
        touch the reader with an enrolled finger
        unlocked (the gate restores the screen) or success
        .RB ( auth
        exits 0) at once; anything typed so far is wiped, never checked.
        .TP
        touch it with another finger
        one counted failure; the next try waits again, or the passcode is asked once the
        tries of the evaluation are used up.
        .TP
        type the passcode and press Enter
        the wait ends at once and the text is the first passcode try (no scan needed).
        .TP
        press Enter alone
        the wait ends at once: the passcode prompt (\-\-policy biometrics:
        userFallback).
        .TP
        Backspace, Ctrl\-W, Ctrl\-U
        edit the passcode being typed (nothing shows).
        .TP
        Ctrl\-C, Ctrl\-\e, Ctrl\-Z
        in
        .BR auth :
        userCancel (the try is taken back); at the gate: the typed line is cleared, the
        session stays locked and the reader keeps waiting.
        .TP
        nothing
        after timeout seconds the try ends uncounted and the passcode is asked.
        .PP
        Keys typed during a wait that ends otherwise (a device error, a wrong scan) are
        discarded: they never become part of the passcode typed at the prompt that
        follows.
        With
        .B \-\-policy biometrics
        typed text is never a passcode (Enter after text drops it).
        .B touchgate event did\-enter\-background \-\-session
        .I S
        (or AuthContext.invalidate() in the library) during a wait ends it with
        appCancel
        .RB ( auth
        exits 9; the gate says what sent the session to the background and waits again).
        Every way a wait ends kills the worker process that ran the stack, so the
        reader is free for the next try at once.
        .PP
        With
        .B \-S
        (each line of standard input is what a line typed at the terminal would be): an
        empty line is the fallback: device\-owner goes to the passcode prompt,
        .B \-\-policy biometrics
        ends with userFallback; under device\-owner a non\-empty line is the passcode:
        the wait ends and that line is the first passcode try (no scan is needed).
        Under
        .B \-\-policy biometrics
        a typed line is never a passcode and is dropped.
        End of input during the wait only stops the reading: the wait for the finger
        goes on.
        touchgate reads input during a wait only once the stack has said something
        without asking (pam_fprintd's "Swipe ..."); while the stack asks a question,
        the line answers it as before.
        .PP
        Several evaluations at once (two terminals, a gate and an
        .BR auth ):
        fprintd gives the reader to one client; pam_fprintd answers every other at once
        with PAM_AUTHINFO_UNAVAIL, so those tries are not counted (no finger was
        checked) and go on as for a reader that is not available.
        The counts of the tries that did reach the reader are written ahead, so
        max\-biometric\-failures wrong scans lock the factor out exactly, however many
        evaluations run.
        .PP
        Remote sessions: a reader on this machine cannot take the finger of someone
        logged in over SSH.
        When
        .BR SSH_CONNECTION ,
        .B SSH_CLIENT
        or
        .B SSH_TTY
        is in the environment of the gate,
        .B auth
        or any evaluating command, the biometric factor is biometryNotAvailable ("This
        is a remote session (from ADDRESS): the biometric factor of this machine is not
        available."),
        .B can\-evaluate \-\-policy biometrics
        says so, device\-owner asks for the passcode straight away (the gate's cover
        says "Remote session (from ADDRESS): unlock with the passcode"), and the stacks
        get the client's address (the first word of SSH_CONNECTION, else unknown) as
        PAM_RHOST (pam_fprintd itself refuses to run when it is set).

        """#

    static let watcher = #"""
        .SH SUSPEND AND SCREEN LOCK
        .B touchgate watch
        is a long\-running process that listens to systemd\-logind on the system bus
        (as swayidle and xss\-lock do;
        .B DBUS_SYSTEM_BUS_ADDRESS
        is honoured), through libdbus\-1.
        It is an executable of its own,
        .BR touchgate\-watch :
        .B touchgate watch
        replaces itself with it (exec, the same process and arguments), looking first
        beside the touchgate it runs from (as scripts/build leaves them), then in
        .I ../libexec/touchgate/
        from there (as installed).
        When neither is there,
        .B touchgate watch
        says so in one line and exits 69;
        .B touchgate watch \-\-unit
        needs no watcher (it prints the unit, whose ExecStart= runs
        .BR "touchgate watch" ).
        Run it as a systemd user service:
        .PP
        .RS
        .nf
        touchgate watch \-\-unit > ~/.config/systemd/user/touchgate\-watch.service
        systemctl \-\-user daemon\-reload
        systemctl \-\-user enable \-\-now touchgate\-watch
        .fi
        .RE
        .PP
        It follows PrepareForSleep on org.freedesktop.login1.Manager and Lock and Unlock
        on the logind sessions of the user (the uid of
        .BR \-\-user 's
        account; a user without an account, such as a PAM\-only test user, watches the
        invoking user's sessions), and holds a sleep delay inhibitor
        (Inhibit("sleep", "touchgate", ..., "delay")), taken at start and again after
        each resume.
        .TP
        PrepareForSleep(true), Lock
        (lid closed, systemctl suspend; loginctl lock\-session, a desktop locker): in
        one store transaction every session of the user (except ended, notRunning ones)
        gets will\-resign\-active and did\-enter\-background where its state allows them
        (an event it does not allow is skipped, never forced) and is locked at once,
        whatever grace\-seconds says: a suspend is not a short trip away.
        A waiting evaluation for one of them ends with appCancel (its live prompt owner
        gets SIGUSR1, as for event did\-enter\-background).
        Then every tmux server those sessions live in locks its clients
        (tmux \-S SOCKET lock\-server; the tmux hooks record each session's server
        socket, from TMUX), and so does every other server of the account in tmux's
        own directory
        .RI ( $TMUX_TMPDIR/tmux\-UID ,
        else
        .IR /tmp/tmux\-UID ;
        sockets the account owns, in a directory only it can write), so a session that
        began before the snippet was loaded is covered too; each attached client shows
        the gate.
        The watcher follows the logind sessions of the account it runs as.
        Only then is the inhibitor released and the machine may sleep (a tmux server
        that has not answered lock\-server within 3 s is given up on, and the watcher
        says so).
        .TP
        PrepareForSleep(false), Unlock
        (resume): will\-enter\-foreground for the sessions the watcher sent to the
        background.
        Nothing the watcher receives ever unlocks a session: only a successful
        evaluation does.
        A Lock or Unlock of another uid's session is ignored, and only signals from
        logind's own connection count.
        .TP
        the system bus going away, logind restarting
        the watcher says so on standard error and reconnects with backoff (0.25 s,
        doubling up to 30 s), then takes the inhibitor again.
        .TP
        SIGTERM, SIGINT, SIGHUP
        the inhibitor is released and the watcher exits 0.
        .TP
        a second watcher
        one watcher runs per user and store: it holds an flock on
        .I STORE.watch\-USER
        beside the store (holding its pid); a second one exits 75 with "a watcher
        already runs for user U and store S (pid N)".
        .B touchgate status
        shows that watcher (watcher).
        .TP
        a store that cannot be written (or read)
        when the watcher marks the sessions: nothing is marked (the transaction is
        rolled back), the tmux servers of the sessions still lock their clients, and
        the watcher exits 74 with one line; exiting releases the inhibitor.
        The unit restarts it (Restart=on\-failure, but not after exit 75).

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
        Exit 74 in full: the store is unreadable, not a database, damaged or empty,
        writable by other users (the file, or any directory from its own up to /
        unless sticky), under a directory that belongs to another user (not root),
        holding schema objects touchgate's migrations did not make (a trigger, view,
        index or table, or a changed table), written by a newer touchgate, or not the
        store
        .B \-\-store\-id
        names (missing, or another store's id).
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
        the passcode service: the account password through pam_unix directly, not
        through common\-auth, which on Debian runs pam_fprintd first when fingerprint
        login is on (a finger would be waited for, and checked outside touchgate's
        count, at the passcode prompt).
        Lines a stack sends (pam_fprintd's "Swipe ...") show when it sends them.
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
        Any other terminal: its command runs the owner; or, where that cannot be
        changed, the rc\-file line first in ~/.bashrc (zsh: the same with zsh):
        .PP
        .RS
        .nf
        touchgate shell
        mkdir \-p ~/.config/touchgate
        touchgate shell\-init bash > ~/.config/touchgate/init.bash
        sed \-i \(aq1i source ~/.config/touchgate/init.bash\(aq ~/.bashrc
        .fi
        .RE
        .PP
        ssh and the console: the login shell (as root, then as the user):
        .PP
        .RS
        .nf
        echo /usr/bin/touchgate\-login\-shell >> /etc/shells
        chsh \-s /usr/bin/touchgate\-login\-shell
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
