// Generated from the Rust types of crates/flagfall-protocol by ts-rs
// (crates/flagfall-protocol/src/typescript.rs). Do not edit: run
// `FLAGFALL_BLESS=1 cargo test -p flagfall-protocol --test typescript`.

export type Color = "white" | "black";

export type Role = "white" | "black" | "director" | "spectator";

export type Mode = "otb" | "online";

export type ClockState = { white_ms: number, black_ms: number, 
/**
 * `"white"`, `"black"` or null.
 */
running: Color | null, };

export type Recommendation = { grant: boolean, 
/**
 * The rule the recommendation rests on (a claimable-position pattern's own rule,
 * else the claim's).
 */
rule: string, reasons: Array<string>, };

export type PendingClaim = { claimant: Color, claim: string, recommendation: Recommendation, };

export type Called = { by: Color, 
/**
 * The game's `at` when the call stopped the clock.
 */
at: number, reason?: string | null, };

export type BoardMove = { uci: string, by: Color, };

export type MoveView = { uci: string, 
/**
 * The move in SAN when it is legal chess: online always; over the board only once
 * the game is over (before, its absence would tell that the move was illegal).
 */
san?: string | null, by: Color, at: number, 
/**
 * The physical board after the move (FEN), legal or not: a page replays the list
 * from these without chess rules of its own.
 */
fen: string, };

export type Claims = { white: Array<string>, black: Array<string>, };

export type PromotionRanks = { white: string, black: string, };

export type PlayerActions = { 
/**
 * Put a move on the board (online: the move, pressed with it).
 */
move: boolean, 
/**
 * Press the clock (over the board only).
 */
press: boolean, 
/**
 * Take back the own move on the board not yet pressed (over the board only; a legal
 * move only where the ruleset allows it, touch move otherwise).
 */
take_back: boolean, 
/**
 * Move and press as one action (over the board only; online every move is pressed).
 */
move_and_press: boolean, offer_draw: boolean, 
/**
 * Answer the opponent's standing draw offer (accept or decline).
 */
answer_draw: boolean, resign: boolean, 
/**
 * Call the director (stops the clock): a director present, nothing waiting for one.
 */
call_director: boolean, };

export type NextPenalty = { 
/**
 * Offences of this kind already recorded against the player.
 */
recorded: number, 
/**
 * The ladder's step (`warning`, `opponent_plus_minute`, `forfeit`,
 * `not_an_offence`, ...), as the ruleset writes it.
 */
step: string, 
/**
 * The step in words ("a warning").
 */
text: string, 
/**
 * The ladder's rule.
 */
rule: string, };

export type OffenceOption = { 
/**
 * The kind as the `offence` action names it (`two_hands`, ...).
 */
kind: string, 
/**
 * The kind in words ("Two hands").
 */
label: string, white: NextPenalty, black: NextPenalty, };

export type DirectorActions = { 
/**
 * Stop the running clock (or keep it stopped after a call).
 */
stop_clock: boolean, 
/**
 * Start the stopped clock (resume after a call or a stop).
 */
start_clock: boolean, 
/**
 * Add or take time (`add_time`).
 */
add_time: boolean, 
/**
 * Rule on the pending claim (grant or deny).
 */
ruling: boolean, 
/**
 * Declare a result or cancel the game.
 */
declare: boolean, 
/**
 * The offences with the ladder's next penalty for each player; empty once the game
 * is over or when it has no director. In the state of the director's sockets (the
 * server leaves them out of the others'); in an event's update only when they
 * changed since the previous event (an offence recorded, the game over): absent,
 * they are as they were.
 */
offences?: Array<OffenceOption> | null, };

export type Actions = { white: PlayerActions, black: PlayerActions, director: DirectorActions, };

export type RulingKind = "result" | "claim_upheld" | "claim_rejected" | "claim_pending" | "recommendation" | "penalty" | "time_change" | "clock" | "refused";

export type TimeChange = { color: Color, ms: number, };

export type Ruling = { 
/**
 * The game's clock when it was made, in milliseconds.
 */
at: number, 
/**
 * The 1-based number of the event that led to it.
 */
event: number, kind: RulingKind, ruling: string, rule: string, 
/**
 * The player it concerns, if one.
 */
player?: Color | null, time?: TimeChange | null, };

export type CreateGame = { rules: string, time_control: string, fen?: string, auto_flag?: boolean, arbiter_calls_illegal?: boolean, variation?: unknown, white?: string, black?: string, director?: boolean, simultaneous_ms?: number, mode?: Mode, };

export type Tokens = { white: string, black: string, director: string, };

export type Urls = { white: string, black: string, director: string, spectator: string, };

export type CreateAnswer = { id: string, tokens: Tokens, urls: Urls, };

export type ComputerConfig = { 
/**
 * The colour the computer plays.
 */
color: Color, 
/**
 * Strength 1 (weakest) to 20 (the engine's full strength). The built-in opponent
 * ignores it beyond its thinking time.
 */
level?: number, 
/**
 * Sometimes play an illegal move or let the flag fall, for the player to claim.
 */
training?: boolean, 
/**
 * The share of the computer's moves that are illegal in training (default 0.25).
 */
illegal_rate?: number, 
/**
 * Seed of the computer's choices (reproducible games); random when absent.
 */
seed?: number, 
/**
 * Training: the computer's move (counted from 0) from which it shuffles a piece out
 * and back for a while, so that a threefold repetition comes within the player's
 * reach (default: somewhere between its 4th and 11th move).
 */
repeat_at?: number, };

export type PracticeBody = { setup: CreateGame, computer: ComputerConfig, };

export type GameState = { id: string, 
/**
 * The game's setup: the fields of `POST /api/games` less `mode`.
 */
setup: CreateGame, mode: Mode, result: string, reason: string | null, rule: string | null, clock: ClockState, fen: string, rulings: Array<Ruling>, moves: Array<MoveView>, to_move: Color, running: Color | null, pending: PendingClaim | null, 
/**
 * A player's call for the director, while it waits for the director.
 */
called: Called | null, flags: Array<Color>, board_move: BoardMove | null, claims: Claims, 
/**
 * What each role may do now besides the claims (the page offers exactly these).
 */
actions: Actions, draw_offer: Color | null, 
/**
 * The number of stored events.
 */
n: number, 
/**
 * The game's `at` clock now, in milliseconds.
 */
server_now: number, dests?: { [key in string]: Array<string> } | null, 
/**
 * The game expired before anyone acted on it (status `aborted`: no result, no
 * action taken; `reason` says why). Absent otherwise.
 */
aborted?: boolean, 
/**
 * Online: the SAN of each legal move, by its UCI (a promotion once per piece,
 * `e7e8q`): a page reads typed SAN and asks for a promotion piece from this.
 */
san?: { [key in string]: string } | null, 
/**
 * The rank (`"8"`, `"1"`) on which each colour's pawns promote: a page asks for the
 * piece when a pawn is put there over the board.
 */
promotion_ranks: PromotionRanks, 
/**
 * The evening the game plays for (its round and board): set on `GET /api/games/{id}`
 * only (it does not change: a page reads it once). Absent for a game of no evening.
 */
evening?: GameEvening, 
/**
 * What the socket's token acts as: set on the WebSocket's `state` message only.
 */
role?: Role | null, };

export type StateUpdate = { reason: string | null, rule: string | null, fen: string, 
/**
 * The completed moves from index `moves_from` on (the earlier ones are unchanged).
 */
moves_from: number, moves: Array<MoveView>, to_move: Color, running: Color | null, pending: PendingClaim | null, 
/**
 * A player's call for the director, while it waits.
 */
called: Called | null, flags: Array<Color>, board_move: BoardMove | null, claims: Claims, 
/**
 * What each role may do now besides the claims; the director's `offences` only
 * when they changed since the previous event.
 */
actions: Actions, draw_offer: Color | null, server_now: number, dests?: { [key in string]: Array<string> } | null, 
/**
 * Online: the SAN of each legal move, by UCI.
 */
san?: { [key in string]: string } | null, };

export type ServerMsg = { "type": "state" } & GameState | { "type": "event", n: number, 
/**
 * The stored event, as the game-script format writes it.
 */
event: { at: number; by?: Role; id?: string; [k: string]: unknown }, rulings: Array<Ruling>, clock: ClockState, result: string, id?: string | null, 
/**
 * What changed in the state object, as of after this event.
 */
update: StateUpdate, } | { "type": "refused", id?: string | null, reason: string, rule?: string | null, } | { "type": "error", id?: string | null, message: string, } | { "type": "flag", color: Color, claims: Claims, } | { "type": "pong", ping: number, server_now: number, } | { "type": "reconnect", node: string, };

export type RulesetInfo = { id: string, name: string, 
/**
 * How its time controls are written, in words with an example.
 */
notation: string, 
/**
 * Usual time controls, the first the default.
 */
controls: Array<string>, };

export type QuickControl = { rules: string, time_control: string, };

export type Rulesets = { rulesets: Array<RulesetInfo>, quick: Array<QuickControl>, };

export type RematchAction = "offer" | "accept" | "decline";

export type RematchBody = { 
/**
 * The player's token of the finished game.
 */
token: string, action: RematchAction, };

export type RematchStatus = "none" | "offered" | "declined" | "accepted";

export type RematchGame = { id: string, 
/**
 * The colour the asking player has in the new game (the other one); null for the
 * director, who directs the new game with the same token.
 */
color: Color | null, 
/**
 * The asking player's page in the new game (with the new token); the director's
 * console of it for the director.
 */
url: string, };

export type RematchView = { status: RematchStatus, 
/**
 * Who offered it (null when nobody did).
 */
by: Color | null, game: RematchGame | null, };

export type Play = "server" | "board";

export type Confirm = "one" | "both";

export type ByeRequest = "full" | "half" | "zero";

export type ByeKindName = "pab" | "full" | "half" | "zero" | "absent";

export type CrossOutcome = "Win" | "Draw" | "Loss" | "ForfeitWin" | "ForfeitLoss" | "DoubleForfeit";

export type PlayerRef = { name: string, number: number, };

export type EveningPlayer = { number: number, name: string, rating: number | null, federation: string | null, fide_id: number | null, uscf_id: string | null, checked_in: boolean, paused: boolean, joined_round: number, withdrawn_from: number | null, 
/**
 * Byes asked in advance, by round.
 */
byes: { [key in number]: ByeRequest }, };

export type ForbiddenPairView = { a: number, b: number, note?: string, };

export type Reported = { white: Array<string> | null, black: Array<string> | null, };

export type Disagreement = { round: number, board: number, 
/**
 * The results (long names, `white-wins`), one per game.
 */
white: Array<string> | null, black: Array<string> | null, };

export type Advice = { grant: boolean, reasons: Array<string>, };

export type DisputeWhat = { "kind": "claim", claimant: Color, claim: string, advice: Advice, } | { "kind": "call", by: Color, reason: string | null, };

export type Dispute = { game: string, round: number, board: number, game_number: number, white: string, black: string, 
/**
 * Since when (Unix milliseconds).
 */
since: number, what: DisputeWhat, };

export type EveningSummary = { id: string, name: string, format: string, 
/**
 * The rounds planned (a round robin not yet started: the rounds its players need).
 */
rounds: number, rounds_paired: number, rounds_complete: number, time_control: string | null, rules: string | null, play: Play, mode: Mode, confirm: Confirm, auto: boolean, check_in: boolean, tiebreaks: string, 
/**
 * The byes a player may ask for in advance, as the format allows (none in a round
 * robin: a game not played is a forfeit).
 */
bye_kinds?: Array<ByeRequest>, players: Array<EveningPlayer>, forbidden: Array<ForbiddenPairView>, 
/**
 * The start date (`YYYY-MM-DD`), for PGN, TRF and the rating reports.
 */
date?: string, 
/**
 * The site, for PGN and TRF.
 */
site?: string, 
/**
 * The details the rating reports need (docs/events.md).
 */
report: Record<string, string>, seq: number, 
/**
 * The disagreements the reader may see: the director's and the boards' players';
 * absent for the public.
 */
disagreements?: Array<Disagreement>, 
/**
 * The games waiting for the director: the director's only.
 */
disputes?: Array<Dispute>, };

export type BoardView = { board: number, white: PlayerRef, black: PlayerRef, 
/**
 * One per game (short form, `1-0`); null until known.
 */
results: Array<string | null>, 
/**
 * The server game of the board's first game.
 */
game?: string, 
/**
 * Each game's server game, when the board has more than one.
 */
games?: Array<string | null>, 
/**
 * The players' reports, to the director and the board's players while not complete.
 */
reported?: Reported, };

export type RoundByeView = { name: string, number: number, kind: ByeKindName, };

export type LeftWhy = "not_checked_in" | "withdrawn" | "paused" | "available";

export type LeftPlayer = { name: string, number: number, why: LeftWhy, };

export type RoundView = { round: number, boards: Array<BoardView>, complete: boolean, bye?: Array<RoundByeView>, 
/**
 * Set by hand, by whom (present only for a round paired by hand).
 */
manual_by?: string | null, 
/**
 * The players who played the round before and are not paired in this one, and why
 * (the director's only; absent when there are none).
 */
left?: Array<LeftPlayer>, };

export type StandingsRow = { rank: number, name: string | null, number: number | null, points: number, 
/**
 * Each tiebreak's value, by its name; null where it does not apply.
 */
tiebreaks: { [key in string]: number | null }, };

export type Standings = { after_round: number, tiebreaks: Array<string>, rows: Array<StandingsRow>, };

export type CrossCell = { round: number, board: number, opponent: number, colour: Color, 
/**
 * One per game, from this player's row; null until known.
 */
results: Array<CrossOutcome | null>, } | { round: number, bye: ByeKindName, };

export type CrossRow = { number: number, name: string, 
/**
 * The score written out (`3½`).
 */
points: string, rounds: Array<CrossCell>, };

export type Crosstable = { rounds: number, players: Array<CrossRow>, };

export type GameLink = { id: string, url: string, };

export type GameEvening = { 
/**
 * The evening's id (`/events/{id}/...`).
 */
id: string, name: string, round: number, board: number, 
/**
 * This game's number on its board (1-based; a two-game pairing has 1 and 2).
 */
game: number, 
/**
 * The board's games, in order (this one among them): the next to play after it.
 */
games: Array<GameLink>, };

export type Me = { name: string, in_event: boolean, number?: number, checked_in?: boolean, paused?: boolean, 
/**
 * Present (and maybe null) for a player of the evening.
 */
withdrawn_from?: number | null, 
/**
 * The latest round paired.
 */
round?: number, 
/**
 * The score written out (`3½`).
 */
points?: string, board?: number, colour?: Color, opponent?: PlayerRef, results?: Array<string | null>, reported?: Reported, games?: Array<GameLink>, bye?: ByeKindName, rank?: number, 
/**
 * The byes the player asked for in advance, by round (a round not yet paired).
 */
byes?: { [key in number]: ByeRequest }, };

export type LiveMessage = { "type": "state", event: EveningSummary, round: RoundView | null, standings: Standings | null, } | { "type": "change", seq: number, 
/**
 * The stored log rows (docs/events.md); the public is not sent the reports.
 */
rows: Array<unknown>, 
/**
 * What followed (`{"effect": "round-paired", "round": 3}`, docs/events.md).
 */
effects: Array<{ effect: string; round?: number; [k: string]: unknown }>, round?: RoundView | null, players?: Array<EveningPlayer>, standings?: Standings | null, 
/**
 * The director's sockets only.
 */
disputes?: Array<Dispute>, } | { "type": "dispute", game: string, dispute: Dispute | null, disputes: Array<Dispute>, };

export type EveningUrls = { 
/**
 * The director's console (with the director's token).
 */
director: string, projector: string, join: string, };

export type EveningCreated = { id: string, director_token: string, urls: EveningUrls, };

export type DeputyCreated = { deputy_token: string, };

export type AddedPlayer = { name: string, number: number | null, token: string, link: string, };

export type PlayersAdded = { players: Array<AddedPlayer>, };

export type PlayerLink = { name: string, number: number, link: string | null, why?: string, };

export type PlayerLinks = { players: Array<PlayerLink>, };

export type ChangeAnswer = { effects: Array<{ effect: string; round?: number; [k: string]: unknown }>, seq: number, };

export type PlayerEdited = { effects: Array<{ effect: string; round?: number; [k: string]: unknown }>, seq: number, 
/**
 * The player's new personal link, when the name changed (each link is tied to its
 * name: the old one no longer opens their page).
 */
link?: string, };

export type PairingWarning = { 
/**
 * The warning as data (docs/events.md).
 */
warning: unknown, 
/**
 * The warning in words.
 */
text: string, };

export type OverrideAnswer = { round: RoundView, warnings: Array<PairingWarning>, };

export type ResultsAnswer = { round: RoundView, effects: Array<{ effect: string; round?: number; [k: string]: unknown }>, };

export type RepairPreview = { round: number, 
/**
 * The boards whose players would change (a board that would be added or removed
 * included), in board order.
 */
boards: Array<number>, 
/**
 * Whether the byes (who has one, of what kind) would change.
 */
byes: boolean, 
/**
 * The round as it is paired now.
 */
before: RoundView, 
/**
 * The round as the change would pair it.
 */
after: RoundView, };

export type KeptPreview = { round: number, reason: string, };

export type ResultPreview = { 
/**
 * What would follow (as the change's answer would say it).
 */
effects: Array<{ effect: string; round?: number; [k: string]: unknown }>, 
/**
 * The rounds that would be paired again.
 */
repaired: Array<RepairPreview>, 
/**
 * The rounds that would keep their pairing, and why.
 */
kept: Array<KeptPreview>, 
/**
 * The evening's log length the preview was made on.
 */
seq: number, };

export type RatingLookup = { 
/**
 * Players updated.
 */
updated: number, 
/**
 * Lines of the list read.
 */
lines: number, 
/**
 * Pairing numbers: no FIDE id, a name the list does not have.
 */
not_found: Array<number>, 
/**
 * Pairing numbers: a FIDE id the list does not have.
 */
unknown_ids: Array<number>, 
/**
 * Pairing numbers: listed without the rating asked for.
 */
unrated: Array<number>, 
/**
 * Pairing numbers whose name several listed players have, with their ids.
 */
ambiguous: Array<[number, Array<number>]>, };

export type RatingChanges = { players: Array<Record<string, unknown>>, };

export type LogEntryView = { seq: number, 
/**
 * Unix milliseconds.
 */
at: number, 
/**
 * Who: `director`, a deputy, a player's name, `game {id}`.
 */
by: string, 
/**
 * The change (`{"change": "set-result", ...}`, docs/events.md).
 */
change: { change: string; [k: string]: unknown }, 
/**
 * What the change replaced, where it replaced something.
 */
before?: Array<unknown>, effects?: Array<{ effect: string; round?: number; [k: string]: unknown }>, };

export type EveningLog = { log: Array<LogEntryView>, };

export type PlayerAction = "check-in" | "check-out" | "withdraw" | "reinstate" | "pause" | "resume" | "bye" | "cancel-bye" | "remove";
