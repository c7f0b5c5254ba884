"""Drives `checkers-zero hub` with pydraughts' own HubEngine and referee (English variant).

argv: the checkers-zero binary, then one check: random | engines | midgame | stop | ponder |
garbage | id | levels, then extra `hub` arguments (the player). Prints one line per finished check; any
failure raises (non-zero exit).
"""
import random
import signal
import sys
import time

from draughts import Board, Move
from draughts.engine import HubEngine, Limit

BINARY, CHECK, PLAYER_ARGS = sys.argv[1], sys.argv[2], sys.argv[3:]
MAX_PLIES = 1000
# An engine that stops answering fails the check instead of hanging the test suite.
WATCHDOG_SECONDS = 900


def watchdog(_signal, _frame):
    raise TimeoutError(f"check {CHECK} ran over {WATCHDOG_SECONDS} s: the engine stopped answering")


def engine(args=PLAYER_ARGS):
    hub = HubEngine([BINARY, "hub", *args])
    assert "english" in hub.variants, hub.variants
    hub.setoption("variant", "english")
    hub.init()
    return hub


def close(hub):
    """`quit` ends the engine process."""
    hub.quit()
    assert hub.p.wait(timeout=10) == 0
    hub.p.stdin.close()
    hub.p.stdout.close()


def legal(board, move):
    """The referee: `move` must be one of the position's legal moves."""
    moves = [m.board_move for m in board.legal_moves()]
    assert move.board_move in moves, (move.pdn_move, [m.pdn_move for m in board.legal_moves()])
    return move


def play_game(players, limits):
    """players: per side (first mover first), a HubEngine or a random.Random; returns the result."""
    board = Board(variant="english")
    first = board.turn
    plies = 0
    while not board.is_over():
        assert plies < MAX_PLIES, "game did not end"
        side = 0 if board.turn == first else 1
        player = players[side]
        if isinstance(player, random.Random):
            move = player.choice(board.legal_moves())
        else:
            move = player.play(board, limits[side], ponder=False).move
        board.push(legal(board, move))
        plies += 1
    return board.winner(), plies


def check_random():
    hub = engine()
    rng = random.Random(7)
    for engine_side in (0, 1):
        players = [rng, rng]
        players[engine_side] = hub
        winner, plies = play_game(players, [Limit(movetime=0.05)] * 2)
        print(f"random: engine as side {engine_side}: winner {winner} after {plies} plies")
    close(hub)


def check_engines():
    a, b = engine(), engine(["--player", "alphabeta:2"])
    limits = [Limit(time=6, inc=0.05), Limit(nodes=3000)]
    winner, plies = play_game([a, b], limits)
    print(f"engines: winner {winner} after {plies} plies")
    close(a)
    close(b)


def check_midgame():
    """A position reached by captures and a multi-jump, sent as pos + moves."""
    rng = random.Random(3)
    for attempt in range(500):
        board = Board(variant="english")
        multi = False
        for _ in range(60):
            if board.is_over():
                break
            move = rng.choice(board.legal_moves())
            multi = multi or len(move.captures or []) >= 2
            board.push(move)
            if multi and not board.is_over():
                break
        if multi and not board.is_over():
            break
    else:
        raise AssertionError("no random game with a multi-jump")
    hub = engine()
    stack = " ".join(m.hub_move for m in board.move_stack)
    result = hub.play(board, Limit(depth=6), ponder=False)
    legal(board, result.move)
    print(f"midgame: after {len(board.move_stack)} moves ({stack}) engine played {result.move.pdn_move}")
    close(hub)


def search_start_position(hub, level, mode):
    """Starts a search of the start position by hand; the board, for the referee."""
    board = Board(variant="english")
    hub.send(f"pos pos={board._game.initial_hub_fen}")
    hub.send(f"level {level}")
    hub.send(f"go {mode}")
    time.sleep(1.0)
    return board


def seconds_until_done(hub, board, since):
    """Reads up to `done`; its move must be legal. Seconds from `since` to `done`."""
    while True:
        command, args = hub.recv_hub()
        if command == "done":
            break
    legal(board, Move(board, hub_move=args.split()[0].split("=")[1]))
    return time.monotonic() - since


def check_stop():
    hub = engine()
    board = search_start_position(hub, "infinite", "think")
    asked = time.monotonic()
    hub.stop()
    answered = seconds_until_done(hub, board, asked)
    # A second: prompt for a GUI, and room for a test machine whose cores run other tests at once
    # (the search notices stop between evaluations in milliseconds when the machine is quiet).
    assert answered < 1.0, f"stop answered after {answered:.3f} s"
    print(f"stop: done {answered * 1000:.0f} ms after stop")
    close(hub)


def check_ponder():
    hub = engine()
    # (pydraughts sends ponder-hit only right after go ponder: no other line in between)
    board = search_start_position(hub, "move-time=0.2", "ponder")
    hit = time.monotonic()
    hub.ponderhit()
    after = seconds_until_done(hub, board, hit)
    assert 0.1 < after < 1.0, f"ponder-hit then done after {after:.3f} s"
    print(f"ponder: done {after * 1000:.0f} ms after ponder-hit")
    close(hub)


def check_garbage():
    hub = engine()
    lines = ["xyzzy", "pos pos=garbage", "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"11-20\"",
             "level depth=abc", "go sideways", "set-param name=variant value=frisian", 'pos moves="1-2']
    for line in lines:
        hub.send(line)
    hub.send("ping")
    errors = []
    while True:
        command, args = hub.recv_hub()
        if command == "pong":
            break
        assert command == "error", (command, args)
        errors.append(args)
    assert len(errors) == len(lines), errors
    board = Board(variant="english")
    legal(board, hub.play(board, Limit(depth=3), ponder=False).move)
    print(f"garbage: {len(errors)} errors, then a legal move")
    close(hub)


def check_id():
    """HubEngine starts the engine (it splits every `id` token at `=`) and reads its name whole;
    then a bad byte sequence gets an error line and the engine goes on."""
    hub = engine()
    assert hub.id["name"].startswith('"checkers-zero ') and "=" not in hub.id["name"], hub.id
    hub.p.stdin.flush()
    hub.p.stdin.buffer.write(b"r\xc3 \xff\n")
    hub.p.stdin.buffer.flush()
    hub.send("ping")
    command, args = hub.recv_hub()
    assert command == "error" and "UTF-8" in args, (command, args)
    assert hub.recv_hub()[0] == "pong"
    print(f"id: {hub.id['name']}")
    close(hub)


def errors_until_pong(hub):
    """Sends ping; the error lines that come before the pong."""
    hub.send("ping")
    errors = []
    while True:
        command, args = hub.recv_hub()
        if command == "pong":
            return errors
        assert command == "error", (command, args)
        errors.append(args)


def check_levels():
    """The `level` setting for people: pydraughts reads it from the `param` line and sets it with
    setoption; values outside 0..8 are refused; a level plays its own playouts whatever the move
    time (a move in far less than it), a ponder search at a level still answers at its deadline
    after ponder-hit, and level 0 is the player named again (it fills the move time)."""
    hub = engine()
    assert "level" in hub.options, hub.options
    for bad in ("9", "-1", "three", "4.5"):
        hub.setoption("level", bad)
    errors = errors_until_pong(hub)
    assert len(errors) == 4 and all("from 0 to 8" in e for e in errors), errors
    hub.setoption("level", 1)
    assert errors_until_pong(hub) == []
    rng = random.Random(11)
    board = Board(variant="english")
    engine_side = board.turn
    slowest, plies = 0.0, 0
    while not board.is_over() and plies < 200:
        if board.turn == engine_side:
            asked = time.monotonic()
            move = hub.play(board, Limit(movetime=2), ponder=False).move
            slowest = max(slowest, time.monotonic() - asked)
        else:
            move = rng.choice(board.legal_moves())
        board.push(legal(board, move))
        plies += 1
    assert slowest < 1.0, f"level 1 took {slowest:.2f} s of a 2 s move time"
    board = search_start_position(hub, "move-time=0.3", "ponder")
    hit = time.monotonic()
    hub.ponderhit()
    after = seconds_until_done(hub, board, hit)
    assert 0.2 < after < 1.0, f"a level's ponder: done {after:.3f} s after ponder-hit"
    hub.setoption("level", 0)
    board = Board(variant="english")
    asked = time.monotonic()
    legal(board, hub.play(board, Limit(movetime=0.5), ponder=False).move)
    own = time.monotonic() - asked
    assert own > 0.4, f"level 0 answered in {own:.2f} s of a 0.5 s move time"
    print(f"levels: level 1 played {plies} plies, its slowest move {slowest * 1000:.0f} ms; "
          f"its ponder done {after * 1000:.0f} ms after ponder-hit; level 0 took {own:.2f} s")
    close(hub)


signal.signal(signal.SIGALRM, watchdog)
signal.alarm(WATCHDOG_SECONDS)
{"random": check_random, "engines": check_engines, "midgame": check_midgame, "stop": check_stop,
 "ponder": check_ponder, "garbage": check_garbage, "id": check_id, "levels": check_levels}[CHECK]()
