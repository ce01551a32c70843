-- The socket of the tmux server a session lives in (the first field of $TMUX in its hooks), so
-- that `touchgate watch` can lock every client of that server (`tmux -S SOCKET lock-server`)
-- before the machine sleeps or the screen locks. NULL for a session outside tmux.
ALTER TABLE sessions ADD COLUMN tmux_socket TEXT;
