// The board page of `checkers-zero serve`: draws the game the server holds for this tab, takes
// the person's move square by square (a multi-jump one landing at a time), and shows the engine's
// thinking as it streams in. Every rule is the server's: the page only offers its legal moves.
"use strict";

let state = null;        // the game as the server last described it
let chosen = [];         // squares of the move being entered
let flipped = false;     // the board turned from the person's side
let thinking = false;
let replay = null;       // {games, game, ply} while a game of the run is replayed
let analysis = null;     // {data, ply, shown}: the last analysis, drawn on the board while shown

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
  if (analysis && analysis.shown) return drawAnalysis();
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
    await readEvents(response, event);
  } catch (e) {
    say(e.message);
  }
  thinking = false;
  document.body.classList.remove("thinking");
  render();
}

// Reads a stream of server-sent events from `response`, each to `handle(name, data)`; a refused
// request (4xx, 503) throws its error.
async function readEvents(response, handle) {
  if (!response.ok) throw new Error((await response.json()).error || response.statusText);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const name = (block.match(/^event: (.*)$/m) || [])[1];
      handle(name, JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "null"));
    }
  }
}

function event(name, data) {
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
  if (analysis) analysis.shown = false;
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
    `and ${run.cpu_hours.toFixed(2)} core-hours (${Math.round(run.games_per_hour)} games/h)`;
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
  if (analysis) analysis.shown = false;
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

// Analysis: a game of a PDN (pasted or picked) searched position by position on the server
// (POST /api/analyse streams its progress); the evaluation graph over the game (a point a
// position, Black's value up), a click on it or on a move showing that position on the board,
// the mistakes and blunders marked in the move list.

const MAX_PDN_BYTES = 256 * 1024;  // the server's cap, told before a large file is sent
const GRAPH = { width: 400, height: 100, pad: 6 };
let analysing = null;    // the AbortController of the analysis under way

function analysisError(text) {
  $("analysis-error").textContent = text || "";
  $("analysis-error").hidden = !text;
}

async function pickFile() {
  const file = $("analyse-file").files[0];
  if (!file) return;
  if (file.size > MAX_PDN_BYTES) {
    analysisError(`${file.name} is ${Math.ceil(file.size / 1024)} KiB; the board analyses PDN of at most ${MAX_PDN_BYTES / 1024} KiB`);
    return;
  }
  $("analyse-pdn").value = await file.text();
  analyse(1);
}

// Analyses game `game` (from 1) of the PDN in the text area, drawing the graph as it fills.
async function analyse(game) {
  const pdn = $("analyse-pdn").value;
  if (!pdn.trim()) return analysisError("paste a game in PDN, or choose a file");
  if (analysing) analysing.abort();
  const controller = new AbortController();
  analysing = controller;
  analysisError(null);
  const request = { pdn, game };
  const seconds = $("analyse-seconds").value.trim();
  if (seconds) request.seconds = Number(seconds);
  const values = [];
  const progress = $("analysis-progress");
  progress.hidden = false;
  progress.textContent = "analysing...";
  $("analyse-button").disabled = true;
  try {
    const response = await fetch("/api/analyse", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
      signal: controller.signal,
    });
    await readEvents(response, (name, data) => {
      if (name === "progress") {
        values[data.index] = data.black;
        progress.textContent = `analysing: ${data.done} of ${data.total} positions`;
        showPanels(true);
        drawGraph(values, data.total, [], null);
      } else if (name === "analysis") {
        showAnalysis(data);
      } else if (name === "error") {
        analysisError(data.error);
      }
    });
  } catch (e) {
    if (e.name !== "AbortError") analysisError(e.message);
  }
  if (analysing === controller) {
    analysing = null;
    progress.hidden = true;
    $("analyse-button").disabled = false;
    if (!analysis) showPanels(false);
  }
}

function showAnalysis(data) {
  replay = null;
  $("replay-controls").hidden = true;
  analysis = { data, ply: 0, shown: true };
  showPanels(true);
  const choice = $("analyse-game");
  choice.length = 0;
  for (const g of data.games) {
    choice.add(new Option(`game ${g.number}: ${g.black || "?"} - ${g.white || "?"} ${g.result}`, g.number));
  }
  choice.value = data.game;
  choice.hidden = data.games.length < 2;
  $("analysis-title").textContent =
    `${data.black || "?"} - ${data.white || "?"} ${data.result}, by ${data.engine}`;
  $("analysis-summary").textContent = data.tally.text;
  $("analysis-pdn").value = data.pdn;
  const list = $("analysis-moves");
  list.textContent = "";
  let pair = null, number = 0;
  data.moves.forEach((m, i) => {
    // A move number before Black's move (and before a game's first move by White).
    if (m.mover === "black" || i === 0) {
      number += 1;
      pair = document.createElement("span");
      pair.className = "pair";
      const label = document.createElement("span");
      label.className = "number";
      label.textContent = `${number}.${m.mover === "white" ? ".." : ""} `;
      pair.appendChild(label);
      list.appendChild(pair);
    } else {
      pair.appendChild(document.createTextNode(" "));
    }
    const move = document.createElement("span");
    move.className = "move" + (m.kind ? " " + m.kind : "");
    move.dataset.ply = i + 1;
    move.textContent = m.move + (m.kind === "blunder" ? "??" : m.kind === "mistake" ? "?" : "");
    move.title = m.comment;
    move.addEventListener("click", () => goTo(i + 1));
    pair.appendChild(move);
  });
  render();
}

// The analysis's panels: the graph under the board, the title and move list beside it.
function showPanels(on) {
  $("analysis").hidden = !on;
  $("analysis-graph").hidden = !on;
}

function goTo(ply) {
  if (!analysis) return;
  analysis.ply = Math.max(0, Math.min(analysis.data.moves.length, ply));
  analysis.shown = true;
  replay = null;
  $("replay-controls").hidden = true;
  render();
}

// The x of position `index` of `total`, and the y of a value for Black (+1 at the top).
function graphX(index, total) {
  const { width, pad } = GRAPH;
  return pad + (total > 1 ? (index * (width - 2 * pad)) / (total - 1) : (width - 2 * pad) / 2);
}
function graphY(value) {
  const { height, pad } = GRAPH;
  return height / 2 - value * (height / 2 - pad);
}

// Draws the graph: `values[i]` (Black's value at position i, or missing), `total` positions,
// `kinds[i]` the mark of the move into position i, the cursor at `current`.
function drawGraph(values, total, kinds, current) {
  const svg = $("eval-graph");
  const ns = "http://www.w3.org/2000/svg";
  const { width, height } = GRAPH;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.textContent = "";
  const add = (name, attributes) => {
    const element = document.createElementNS(ns, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    svg.appendChild(element);
    return element;
  };
  add("rect", { x: 0, y: 0, width, height: height / 2, class: "black-half" });
  add("rect", { x: 0, y: height / 2, width, height: height / 2, class: "white-half" });
  add("line", { x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "axis" });
  const known = [];
  values.forEach((v, i) => { if (v !== undefined && v !== null) known.push([graphX(i, total), graphY(v)]); });
  if (known.length) {
    const line = known.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
    const first = known[0][0].toFixed(1), last = known[known.length - 1][0].toFixed(1);
    add("polygon", { points: `${first},${height / 2} ${line} ${last},${height / 2}`, class: "area" });
    add("polyline", { points: line, class: "curve" });
  }
  if (current !== null) {
    const x = graphX(current, total);
    add("line", { x1: x, x2: x, y1: 0, y2: height, class: "cursor" });
  }
  values.forEach((v, i) => {
    if (v === undefined || v === null) return;
    const point = add("circle", {
      cx: graphX(i, total), cy: graphY(v), r: kinds[i] ? 3.5 : 2.2,
      class: "point" + (kinds[i] ? " " + kinds[i] : "") + (i === current ? " current" : ""),
    });
    point.dataset.ply = i;
    const title = document.createElementNS(ns, "title");
    title.textContent = `ply ${i}: ${(v >= 0 ? "+" : "") + v.toFixed(2)} for Black`;
    point.appendChild(title);
  });
}

// A click on the graph: the position nearest it.
function graphClicked(e) {
  if (!analysis) return;
  const total = analysis.data.positions.length;
  const box = $("eval-graph").getBoundingClientRect();
  const x = ((e.clientX - box.left) / box.width) * GRAPH.width;
  const { width, pad } = GRAPH;
  const ply = total > 1 ? Math.round(((x - pad) * (total - 1)) / (width - 2 * pad)) : 0;
  goTo(ply);
}

function drawAnalysis() {
  const data = analysis.data, ply = analysis.ply, at = data.positions[ply];
  const pieces = new Map(at.board.map((p) => [p.square, p.piece]));
  const played = data.moves.slice(0, ply).map((m) => m.move);
  drawBoard(pieces, { last: lastMoveSquares(played) }, null);
  const move = ply ? data.moves[ply - 1] : null;
  $("analysis-ply").textContent = `ply ${ply} of ${data.moves.length}` +
    (move ? ` (${move.move}${move.kind ? ", " + move.kind : ""})` : "");
  $("analysis-fen").textContent = at.fen;
  say(`analysis: ${data.black || "?"} - ${data.white || "?"}`);
  const kinds = [null, ...data.moves.map((m) => m.kind)];
  drawGraph(data.positions.map((p) => p.black), data.positions.length, kinds, ply);
  for (const element of $("analysis-moves").querySelectorAll(".move")) {
    element.classList.toggle("current", Number(element.dataset.ply) === ply);
  }
  // The engine panel: the analysis's view of this position, for the side to move.
  $("engine-name").textContent = `${data.engine} (analysis)`;
  $("eval-fill").style.width = `${100 * (0.5 - 0.5 * at.black)}%`;
  $("score").textContent = `${(at.value >= 0 ? "+" : "") + at.value.toFixed(2)} for ${at.to_move}` +
    (move && move.kind ? `; ${move.move} was a ${move.kind} (lost ${move.lost.toFixed(2)}, best ${move.best})` : "");
  for (const id of ["depth", "nodes", "seconds"]) $(id).textContent = "-";
  $("pv").textContent = at.line.join(" ") || "-";
  showOutlook(at.outlook, at.to_move);
  showRootMoves([]);
}

$("new-game").addEventListener("submit", newGame);
$("analyse-form").addEventListener("submit", (e) => { e.preventDefault(); analyse(1); });
$("analyse-file").addEventListener("change", pickFile);
$("analyse-game").addEventListener("change", () => analyse(Number($("analyse-game").value)));
$("eval-graph").addEventListener("click", graphClicked);
$("analysis-prev").addEventListener("click", () => goTo(analysis.ply - 1));
$("analysis-next").addEventListener("click", () => goTo(analysis.ply + 1));
$("leave-analysis").addEventListener("click", () => { analysis.shown = false; render(); });
$("analysis-from-here").addEventListener("click", () => {
  const fen = analysis.data.positions[analysis.ply].fen;
  $("start").value = fen;
  $("human").value = fen.startsWith("W") ? "white" : "black";
  newGame();
});
document.addEventListener("keydown", (e) => {
  if (!analysis || !analysis.shown || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
  if (e.key === "ArrowLeft") goTo(analysis.ply - 1);
  else if (e.key === "ArrowRight") goTo(analysis.ply + 1);
});
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
