// The board page of `checkers-zero serve`: draws the game the server holds for this tab, takes
// the person's move square by square (a multi-jump one landing at a time), and shows the engine's
// thinking as it streams in. Every rule is the server's: the page only offers its legal moves.
"use strict";

let state = null;        // the game as the server last described it
let chosen = [];         // squares of the move being entered
let flipped = false;     // the board turned from the person's side
let thinking = false;
let replay = null;       // {games, game, ply} while a game of the run is replayed

const $ = (id) => document.getElementById(id);

// Row and column (0..8, row 0 at the top from White's side) of standard square 1..32.
function place(square) {
  const s = square - 1, row = Math.floor(s / 4), k = s % 4;
  return { row, col: row % 2 === 0 ? 2 * k + 1 : 2 * k };
}

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) { $("status").textContent = text; }

// Draws `pieces` (square -> piece) with the marks given (square sets), clicks going to
// `onClick` when it is set.
function drawBoard(pieces, marks, onClick) {
  const board = $("board");
  board.textContent = "";
  const human = state ? state.human : "black";
  const turned = flipped !== (human === "black");
  for (let r = 0; r < 8; r++) {
    for (let c = 0; c < 8; c++) {
      const row = turned ? 7 - r : r, col = turned ? 7 - c : c;
      const cell = document.createElement("div");
      cell.className = "cell " + ((row + col) % 2 === 1 ? "dark" : "light");
      if ((row + col) % 2 === 1) {
        const square = row * 4 + Math.floor(col / 2) + 1;
        cell.dataset.square = square;
        const number = document.createElement("span");
        number.className = "number";
        number.textContent = square;
        cell.appendChild(number);
        if (pieces.has(square)) {
          const piece = document.createElement("div");
          piece.className = "piece";
          piece.dataset.piece = pieces.get(square);
          cell.appendChild(piece);
        }
        for (const [name, squares] of Object.entries(marks)) {
          if (squares.has(square)) cell.classList.add(name);
        }
        if (onClick) cell.addEventListener("click", () => onClick(square));
      }
      board.appendChild(cell);
    }
  }
}

function render() {
  if (replay) return drawReplay();
  const pieces = new Map(state.board.map((p) => [p.square, p.piece]));
  const fits = state.legal.filter((m) => chosen.every((sq, i) => m.squares[i] === sq));
  drawBoard(pieces, {
    movable: new Set(chosen.length ? [] : state.legal.map((m) => m.squares[0])),
    target: new Set(chosen.length ? fits.map((m) => m.squares[chosen.length]) : []),
    chosen: new Set(chosen),
    last: lastMoveSquares(state.moves),
  }, clicked);
  $("engine-name").textContent = state.engine;
  const list = $("moves");
  list.textContent = "";
  for (let i = 0; i < state.moves.length; i += 2) {
    const item = document.createElement("li");
    item.textContent = state.moves.slice(i, i + 2).join("  ");
    list.appendChild(item);
  }
  $("pdn").value = state.pdn;
  if (state.result) say(`game over: ${state.result.score} (${state.result.reason.replace("_", " ")})`);
  else if (thinking) say(`${state.engine} is thinking`);
  else if (state.legal.length) say(`your move (${state.to_move})`);
}

function lastMoveSquares(moves) {
  const text = moves[moves.length - 1];
  return new Set(text ? text.split(/[-x]/).map(Number) : []);
}

async function clicked(square) {
  if (thinking || !state || state.result) return;
  const starts = new Set(state.legal.map((m) => m.squares[0]));
  const next = [...chosen, square];
  const fits = state.legal.filter((m) => next.every((sq, i) => m.squares[i] === sq));
  if (chosen.length && fits.length) {
    chosen = next;
  } else if (starts.has(square)) {
    chosen = [square];
  } else {
    chosen = [];
  }
  const done = state.legal.filter((m) => m.squares.length === chosen.length &&
    chosen.every((sq, i) => m.squares[i] === sq));
  if (chosen.length > 1 && done.length === 1) {
    const move = done[0].move;
    chosen = [];
    try {
      state = await call("POST", `/api/games/${state.id}/move`, { move });
    } catch (e) {
      say(e.message);
    }
    render();
    await engineTurn();
  } else {
    render();
  }
}

// The engine's move, its thinking shown as the server streams it.
async function engineTurn() {
  if (!state || state.result || state.to_move === state.human) return;
  thinking = true;
  document.body.classList.add("thinking");
  render();
  try {
    const response = await fetch(`/api/games/${state.id}/think`);
    if (!response.ok) throw new Error((await response.json()).error);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let end;
      while ((end = text.indexOf("\n\n")) >= 0) {
        event(text.slice(0, end));
        text = text.slice(end + 2);
      }
    }
  } catch (e) {
    say(e.message);
  }
  thinking = false;
  document.body.classList.remove("thinking");
  render();
}

function event(block) {
  const name = (block.match(/^event: (.*)$/m) || [])[1];
  const data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "null");
  if (name === "progress") showThinking(data);
  else if (name === "state") state = data;
  else if (name === "error") say(data.error);
}

function showThinking(p) {
  let text, share;
  if (p.score.men !== undefined) {
    text = (p.score.men >= 0 ? "+" : "") + p.score.men.toFixed(2) + " men";
    share = 0.5 + 0.5 * Math.tanh(p.score.men / 2);
  } else if (p.score.win_in !== undefined) {
    text = `win in ${p.score.win_in}`;
    share = 1;
  } else {
    text = `loss in ${p.score.loss_in}`;
    share = 0;
  }
  // The bar is the engine's side's share: shown for White when the engine plays White.
  const engineIsWhite = state.human === "black";
  $("eval-fill").style.width = `${100 * (engineIsWhite ? share : 1 - share)}%`;
  $("score").textContent = text + " for the engine";
  $("depth").textContent = p.depth;
  $("nodes").textContent = p.playouts !== null ? `${p.nodes} (${p.playouts} root visits)` : p.nodes;
  $("seconds").textContent = p.seconds.toFixed(2) + " s";
  $("pv").textContent = p.pv.join(" ");
  showOutlook(p.outlook);
  showRootMoves(p.root_moves);
}

// Chances of a win, a draw and a loss for `side` (MCTS only).
function showOutlook(o, side = "engine") {
  $("outlook").hidden = !o;
  if (!o) return;
  const percent = (x) => `${(100 * x).toFixed(0)}%`;
  $("wdl-win").style.width = percent(o.win);
  $("wdl-draw").style.width = percent(o.draw);
  $("wdl-loss").style.width = percent(o.loss);
  $("wdl-text").textContent =
    `${side}: win ${percent(o.win)} · draw ${percent(o.draw)} · loss ${percent(o.loss)}`;
}

// The search's most visited root moves, with the net's priors and the mean values (MCTS only);
// a net's view without a search has priors alone.
function showRootMoves(moves) {
  $("root-moves").hidden = moves.length === 0;
  const body = $("root-moves").querySelector("tbody");
  body.replaceChildren(...moves.map((m) => {
    const row = document.createElement("tr");
    const value = m.value == null ? "-" : (m.value >= 0 ? "+" : "") + m.value.toFixed(2);
    for (const text of [m.move, m.visits ?? "-", (100 * m.prior).toFixed(1) + "%", value]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.appendChild(cell);
    }
    return row;
  }));
}

async function newGame(event) {
  if (event) event.preventDefault();
  replay = null;
  $("replay-controls").hidden = true;
  const request = { human: $("human").value };
  const player = $("player").value.trim();
  if (player) request.player = player;
  const start = $("start").value.trim();
  if (/^\d{3}$/.test(start)) request.ballot = start;
  else if (start) request.fen = start;
  try {
    state = await call("POST", "/api/games", request);
    chosen = [];
    render();
    await engineTurn();
  } catch (e) {
    say(e.message);
  }
}

// The run beside the board (`serve --run-dir`): its summary and plots, refreshed while it runs,
// and its games replayed ply by ply on the board.
async function showRun() {
  let run;
  try {
    run = await call("GET", "/api/run");
  } catch (e) {
    return; // served without a run
  }
  $("run").hidden = false;
  const best = run.best ? `best net: generation ${run.best.generation}, step ${run.best.step}` : "no best net yet";
  $("run-summary").textContent = `${best}; ${run.games} games in ${run.hours.toFixed(2)} h ` +
    `(${Math.round(run.games_per_hour)} games/h)`;
  const plots = $("plots");
  plots.textContent = "";
  for (const name of run.plots) {
    const img = document.createElement("img");
    img.src = `/run/${name}?t=${Date.now()}`;
    img.alt = name;
    plots.appendChild(img);
  }
  const files = $("game-files");
  const chosenFile = files.value;
  files.length = 1;
  for (const name of run.game_files) files.add(new Option(name, name));
  files.value = chosenFile;
}

async function loadGameFile() {
  const name = $("game-files").value;
  if (!name) return;
  const file = await call("GET", `/api/run/games/${encodeURIComponent(name)}`);
  const index = $("game-index");
  index.length = 0;
  file.games.forEach((g, i) => index.add(new Option(`${i + 1}: ${g.black} - ${g.white} ${g.result}`, i)));
  replay = { games: file.games, game: 0, ply: 0 };
  $("replay-controls").hidden = false;
  render();
}

function drawReplay() {
  const game = replay.games[replay.game];
  const pieces = new Map(game.boards[replay.ply].map((p) => [p.square, p.piece]));
  drawBoard(pieces, { last: lastMoveSquares(game.moves.slice(0, replay.ply)) }, null);
  $("replay-ply").textContent = `ply ${replay.ply} of ${game.moves.length}` +
    (replay.ply ? ` (${game.moves[replay.ply - 1]})` : "");
  say(`replaying ${game.black} - ${game.white}`);
  showNetView(game, replay.ply);
}

// The engine's net's own view (no search) of the replayed position: its chances for the side
// to move and its priors. Nothing is shown when the engine has no net or the game is over there.
let netViewAsked = null;
async function showNetView(game, ply) {
  const asked = `${replay.game}:${ply}`;
  netViewAsked = asked;
  let view = null;
  try {
    view = await call("POST", "/api/evaluate", { fen: game.fens[0], moves: game.moves.slice(0, ply) });
  } catch (e) {
    view = null;
  }
  if (netViewAsked !== asked || !replay) return;
  $("score").textContent = view ? `${view.value >= 0 ? "+" : ""}${view.value.toFixed(2)} for ${view.to_move} (the net, no search)` : "-";
  showOutlook(view && view.outlook, view ? view.to_move : "");
  showRootMoves(view ? view.moves.slice(0, 8) : []);
}

function step(by) {
  if (!replay) return;
  const game = replay.games[replay.game];
  replay.ply = Math.max(0, Math.min(game.moves.length, replay.ply + by));
  render();
}

$("game-files").addEventListener("change", loadGameFile);
$("game-index").addEventListener("change", () => {
  replay.game = Number($("game-index").value);
  replay.ply = 0;
  render();
});
$("prev").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
$("leave-replay").addEventListener("click", () => {
  replay = null;
  $("replay-controls").hidden = true;
  render();
});
// The replayed position as a new game, the person playing the side to move there.
$("from-here").addEventListener("click", () => {
  const fen = replay.games[replay.game].fens[replay.ply];
  $("start").value = fen;
  $("human").value = fen.startsWith("W") ? "white" : "black";
  newGame();
});

$("new-game").addEventListener("submit", newGame);
$("undo").addEventListener("click", async () => {
  if (thinking || !state) return;
  state = await call("POST", `/api/games/${state.id}/undo`);
  chosen = [];
  render();
});
$("flip").addEventListener("click", () => { flipped = !flipped; if (state) render(); });
$("copy").addEventListener("click", () => navigator.clipboard.writeText($("pdn").value));
newGame();
showRun();
setInterval(showRun, 10000);
