//! Maximum-weight matching on a dense graph, by Edmonds' primal-dual blossom algorithm
//! (the O(n³) formulation of Galil, "Efficient algorithms for finding maximum matching in
//! graphs", 1986), extended so that edge weights can change between solves.
//!
//! The Dutch engine asks for a maximum-weight matching, changes the weights of the edges
//! around a few vertices, and asks again, hundreds of times per round. Solving from
//! scratch each time would cost O(n³) per call; instead the previous optimum is repaired:
//!
//! * every vertex touched by a change is made a trivial blossom (the blossoms around it are
//!   dissolved, their duals pushed down onto their vertices) and unmatched, together with
//!   any vertex whose matched edge stops being tight because of that;
//! * all those exposed vertices get one common dual `U`, large enough for every edge around
//!   them to be feasible (slack ≥ 0), so that the usual invariants hold again;
//! * stages are run as usual, except that an exposed vertex whose dual has reached 0 is
//!   simply left exposed (it is optimal for it to be), and when a non-root vertex's dual
//!   reaches 0 first, the alternating path from its root to it is flipped (Galil's rule),
//!   which leaves it exposed with dual 0.
//!
//! Blossoms that survive from one stage (or solve) to the next are not rescanned vertex by
//! vertex: each keeps, per outside vertex, which of its vertices has the edge of least
//! slack to it (`near`), valid for the blossom's whole life because its vertices' duals
//! always move together; an S-blossom is then scanned with one edge per outside vertex.
//!
//! Optimality at the end: every edge has slack ≥ 0, matched edges and blossom edges have
//! slack 0, blossoms with a positive dual are full, and exposed vertices have dual 0.
//!
//! Dual variables are stored doubled (`slack = u_i + u_j - 2 w_ij`), as in the classic
//! implementation by J. van Rantwijk, so that all values stay integers.
//! Edges of weight 0 are absent.

// Index loops mirror the textbook algorithm over parallel arrays.
#![allow(clippy::needless_range_loop)]

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

use super::wide::{Wide, WordHasher};

const NONE: u32 = u32::MAX;

/// How many exposed vertices grow alternating trees together during a repair. All at once
/// rescans every waiting root at every stage; one at a time needs many more dual steps.
/// With repairs that keep the blossoms not containing a changed vertex, 32 gives the
/// fewest instructions at 1,000 players (callgrind, `bench` event: 8: 29.0e9, 16: 23.4e9,
/// 32: 17.8e9, 64: 19.8e9, 256: 34.3e9; 24: 22.0e9, 48: 20.7e9). The best value depends on
/// the event: on the 1,000-player event after 6 naive rounds 64 does better (16: 23.0e9,
/// 32: 20.0e9, 64: 16.6e9). 16 was best when repairs dissolved whole blossoms.
///
/// Larger graphs want larger batches (`root_batch`): on the 2,000-player `bench` event
/// (round 5), user CPU of one `dutch::pair`, builds run alternately in one session
/// (issue 34): 32: 5.88 / 6.65 s, 64: 5.23 / 6.03 s, 128: 4.92 / 5.16 / 5.02 s, 256:
/// 7.05 s; at 1,000 players 64 is no worse than 32 (1.25 / 1.18 s against 1.23 / 1.16 s
/// for three calls) and 128 is worse (1.47 / 1.38 s). Same pairings at every value.
const ROOT_BATCH: usize = 32;

/// The root batch for a graph of `n` vertices: `n / 8`, from [`ROOT_BATCH`] up to 256.
/// It matters for a bracket's first solve, where every vertex is exposed. Measured with
/// the collapsed bracket matchers and the S1 opponents settled from the duals (issue 34,
/// user CPU of the whole round, `dutch_round`): 5,000 players after one naive round,
/// `n / 16` up to 128: 7.49 / 7.50 s, `n / 8` up to 256: 6.53 / 6.45 s, up to 512: 8.54 /
/// 7.62 s, `n / 4` up to 1,024: 9.85 / 10.53 s; 2,000 players (round 5) 0.68-0.83 s against
/// 0.63-0.69 s; 10,000 players, round 2: 72.0 s against 59.9 s (one run each, loaded
/// machine). Same pairings at every value.
fn root_batch(n: usize) -> usize {
    (n / 8).clamp(ROOT_BATCH, 256)
}

/// A directed view of an edge: it leaves `from` and ends at `to`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Ep {
    from: u32,
    to: u32,
}

impl Ep {
    const NONE: Ep = Ep {
        from: NONE,
        to: NONE,
    };

    fn flip(self) -> Ep {
        Ep {
            from: self.to,
            to: self.from,
        }
    }

    fn is_none(self) -> bool {
        self.from == NONE
    }
}

/// An incremental maximum-weight matcher on `n` vertices.
pub struct Matcher<const N: usize> {
    n: usize,
    /// Edge weights, doubled (`2 w`, the form the slacks use), as a symmetric square
    /// matrix of indices into `table` (the distinct weights), so that the edges of one
    /// vertex are contiguous in memory and a scan reads 4 bytes per edge instead of a
    /// wide weight: there are few distinct weights, and the matrix of `u32` stays in
    /// cache where the matrix of wide weights did not. Index 0 is the weight 0 (no edge).
    wid: Vec<u32>,
    table: Vec<Wide<N>>,
    interned: HashMap<Wide<N>, u32, BuildHasherDefault<WordHasher>>,
    /// The largest weight in `table`.
    table_max: Wide<N>,
    /// The weight interned last and its index (zero: none yet).
    last_interned: (Wide<N>, u32),
    alive: Vec<bool>,
    alive_list: Vec<u32>,
    mate: Vec<u32>,
    label: Vec<u8>,
    labelend: Vec<Ep>,
    inblossom: Vec<u32>,
    parent: Vec<u32>,
    childs: Vec<Vec<u32>>,
    base: Vec<u32>,
    endps: Vec<Vec<Ep>>,
    bestedge: Vec<Ep>,
    bestedges: Vec<Option<Vec<Ep>>>,
    unused: Vec<u32>,
    dual: Vec<Wide<N>>,
    queue: Vec<u32>,
    /// Weight changes since the last solve, grouped by the vertex that will absorb them
    /// (one endpoint of each changed edge), in the order the vertices were first named.
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    pending: Vec<Vec<(u32, u32)>>,
    /// Vertices to remove (finalised pairs) at the next solve.
    killed: Vec<u32>,
    /// Partners of removed vertices.
    fixed: Vec<u32>,
    /// Exposed vertices allowed to be roots in the current stages.
    active: Vec<bool>,
    /// `best[x].slack` is the slack of `bestedge[x]` whenever `best[x].generation ==
    /// generation`; `generation` changes at every dual step and stage, and each dual step
    /// carries the slacks it computed over to the next generation (a best edge of a free
    /// vertex leaves an S-vertex, so its slack falls by the step; one between S-blossoms
    /// falls by twice the step). Saves recomputing a best edge's slack (random reads of
    /// the weight matrix) at every comparison. The stamp and the slack sit side by side,
    /// as the edge scan reads both for every edge it compares.
    best: Vec<BestSlack<N>>,
    generation: u64,
    /// Scratch for `dual_step`: best slacks computed in this step, and the multiple of
    /// the step by which each falls.
    fresh: Vec<(u32, bool)>,
    /// The S-vertices of the current stage (a vertex stays S until the stage ends), in
    /// the order they were labelled; `s_mark[v] == stage` when `v` is listed.
    s_list: Vec<u32>,
    s_mark: Vec<u64>,
    stage: u64,
    /// Vertices given a best edge, and non-trivial blossoms labelled, in the current
    /// stage (each once; `be_mark` / `b_mark` hold the stage when listed).
    be_list: Vec<u32>,
    be_mark: Vec<u64>,
    b_list: Vec<u32>,
    b_mark: Vec<u64>,
    /// Scratch for `add_blossom`: the best edge to each S-blossom and its slack.
    best_to: Vec<Ep>,
    best_to_slack: Vec<Wide<N>>,
    /// Scratch for `lift`: the vertices of the blossom being expanded.
    fresh_leaves: Vec<u32>,
    /// `near[b][w]`, when `near[b]` is filled (length `n`): the vertex of blossom `b` whose
    /// edge to `w` (outside `b`) has the least slack, or `NONE` without an edge. While `b`
    /// exists the duals of its vertices all move by the same amounts (dual steps act on
    /// top-level blossoms, an expansion pushes a dual onto every vertex below it), so the
    /// choice stays valid until an edge of one of its vertices changes weight (the cache is
    /// then dropped). Scanning an S-blossom this way reads one edge per outside vertex
    /// instead of one per vertex of the blossom and outside vertex.
    near: Vec<Vec<u32>>,
    /// Scratch for filling `near`: the least slack found so far per outside vertex, and
    /// which vertices belong to the blossom being filled.
    near_slack: Vec<Wide<N>>,
    in_b: Vec<bool>,
    /// Scratch for `add_blossom`: the other S-blossoms with a `near` cache, the vertices
    /// of the other S-blossoms, and a stamp marking the blossoms listed.
    units: Vec<u32>,
    loose: Vec<u32>,
    unit_mark: Vec<u64>,
    unit_stamp: u64,
    /// `drop_mark[b] == drop_stamp` when `drop_near` has cleared blossom `b`'s cache in
    /// the current solve: the blossoms above `b` are then cleared too (the nesting does
    /// not change while weights are applied), so the walk up can stop there.
    drop_mark: Vec<u64>,
    drop_stamp: u64,
    /// Vertices whose applied weight changes ([`Matcher::apply_weights`]) the current
    /// optimum may not survive: repaired at the next solve.
    deferred: Vec<u32>,
}

/// A best edge's cached slack and the generation it is valid in (`Matcher::best`).
#[derive(Clone, Copy)]
struct BestSlack<const N: usize> {
    generation: u64,
    slack: Wide<N>,
}

/// Keep `e` (slack `s`) as the best edge to S-blossom `bj` if it is the first one or has
/// less slack than the one kept (`add_blossom`).
fn offer_best<const N: usize>(
    best_to: &mut [Ep],
    best_to_slack: &mut [Wide<N>],
    touched_to: &mut Vec<u32>,
    bj: u32,
    e: Ep,
    s: Wide<N>,
) {
    let bji = bj as usize;
    if best_to[bji].is_none() {
        touched_to.push(bj);
        best_to[bji] = e;
        best_to_slack[bji] = s;
    } else if s < best_to_slack[bji] {
        best_to[bji] = e;
        best_to_slack[bji] = s;
    }
}

/// Keep `x` as `near[w]` if it is the first candidate or its key `s` is smaller
/// (`ensure_near`).
fn keep_least<const N: usize>(near: &mut [u32], key: &mut [Wide<N>], w: usize, x: u32, s: Wide<N>) {
    if near[w] == NONE || s < key[w] {
        near[w] = x;
        key[w] = s;
    }
}

/// Index of edge `i`-`j` in the square weight matrix (row `i`).
fn at(n: usize, i: usize, j: usize) -> usize {
    i * n + j
}

impl<const N: usize> Matcher<N> {
    /// A graph of `n` vertices and no edges.
    #[must_use]
    pub fn new(n: usize) -> Self {
        let two_n = 2 * n;
        Matcher {
            n,
            wid: vec![0; n * n],
            table: vec![Wide::ZERO],
            interned: HashMap::default(),
            last_interned: (Wide::ZERO, 0),
            table_max: Wide::ZERO,
            alive: vec![true; n],
            alive_list: (0..n as u32).collect(),
            mate: vec![NONE; n],
            label: vec![0; two_n],
            labelend: vec![Ep::NONE; two_n],
            inblossom: (0..n as u32).collect(),
            parent: vec![NONE; two_n],
            childs: vec![Vec::new(); two_n],
            base: (0..n as u32).chain(std::iter::repeat_n(NONE, n)).collect(),
            endps: vec![Vec::new(); two_n],
            bestedge: vec![Ep::NONE; two_n],
            bestedges: vec![None; two_n],
            unused: (n as u32..two_n as u32).rev().collect(),
            dual: vec![Wide::ZERO; two_n],
            queue: Vec::new(),
            touched: Vec::new(),
            is_touched: vec![false; n],
            pending: vec![Vec::new(); n],
            killed: Vec::new(),
            fixed: vec![NONE; n],
            active: vec![false; n],
            best: vec![
                BestSlack {
                    generation: 0,
                    slack: Wide::ZERO,
                };
                two_n
            ],
            generation: 1,
            fresh: Vec::new(),
            s_list: Vec::new(),
            s_mark: vec![0; n],
            stage: 0,
            be_list: Vec::new(),
            be_mark: vec![0; n],
            b_list: Vec::new(),
            b_mark: vec![0; two_n],
            best_to: vec![Ep::NONE; two_n],
            best_to_slack: vec![Wide::ZERO; two_n],
            fresh_leaves: Vec::new(),
            near: vec![Vec::new(); two_n],
            near_slack: vec![Wide::ZERO; n],
            in_b: vec![false; n],
            units: Vec::new(),
            loose: Vec::new(),
            unit_mark: vec![0; two_n],
            unit_stamp: 0,
            drop_mark: vec![0; two_n],
            drop_stamp: 0,
            deferred: Vec::new(),
        }
    }

    /// The index of weight `w` in `table`, adding it if new.
    fn intern(&mut self, w: Wide<N>) -> u32 {
        if w.is_zero() {
            return 0;
        }
        // Weights come in runs of equal values (a row of one bracket).
        if self.last_interned.0 == w {
            return self.last_interned.1;
        }
        if let Some(&id) = self.interned.get(&w) {
            self.last_interned = (w, id);
            return id;
        }
        let id = u32::try_from(self.table.len()).expect("fewer than 2^32 distinct weights");
        self.table.push(w);
        if w > self.table_max {
            self.table_max = w;
        }
        self.interned.insert(w, id);
        self.last_interned = (w, id);
        id
    }

    /// Set the weight of edge `i`-`j`; takes effect at the next [`Matcher::solve`].
    pub fn set_weight(&mut self, i: usize, j: usize, w: Wide<N>) {
        if i == j || !self.alive[i] || !self.alive[j] {
            return;
        }
        let (owner, other) = if self.is_touched[j] && !self.is_touched[i] {
            (j, i)
        } else {
            (i, j)
        };
        if !self.is_touched[owner] {
            self.is_touched[owner] = true;
            self.touched.push(owner as u32);
        }
        let id = self.intern(w.double());
        self.pending[owner].push((other as u32, id));
    }

    /// Take the matched pair `a`-`b` out of the graph for good (it stays matched).
    pub fn finalize_pair(&mut self, a: usize, b: usize) {
        if a == b || !self.alive[a] || !self.alive[b] {
            return;
        }
        self.killed.push(a as u32);
        self.killed.push(b as u32);
        self.fixed[a] = b as u32;
        self.fixed[b] = a as u32;
    }

    /// Apply the pending weight changes to the weight matrix in the order [`Matcher::solve`]
    /// applies them, without repairing the optimum: for a matcher that will not be solved
    /// again, whose final weights are read with [`Matcher::weight`].
    pub fn flush_weights(&mut self) {
        let touched = std::mem::take(&mut self.touched);
        for &x in &touched {
            let xi = x as usize;
            self.is_touched[xi] = false;
            for k in 0..self.pending[xi].len() {
                let (y, id) = self.pending[xi][k];
                let yi = y as usize;
                if self.alive[xi] && self.alive[yi] {
                    self.wid[at(self.n, xi, yi)] = id;
                    self.wid[at(self.n, yi, xi)] = id;
                }
            }
            self.pending[xi].clear();
        }
    }

    /// The weight of edge `i`-`j` in the weight matrix (pending changes not included).
    #[must_use]
    pub fn weight(&self, i: usize, j: usize) -> Wide<N> {
        self.table[self.wid[at(self.n, i, j)] as usize].half()
    }

    /// The current matching: `m[v]` is `v`'s mate, or `v` itself when exposed.
    #[must_use]
    pub fn matching(&self) -> Vec<usize> {
        (0..self.n)
            .map(|v| {
                if self.mate[v] == NONE {
                    v
                } else {
                    self.mate[v] as usize
                }
            })
            .collect()
    }

    /// Whether weight changes are waiting for the next [`Matcher::solve`] (removals of
    /// finalised pairs are not counted).
    #[must_use]
    pub fn has_pending_weights(&self) -> bool {
        !self.touched.is_empty()
    }

    /// `v`'s mate in the current matching, `None` when `v` is exposed.
    #[must_use]
    pub fn mate(&self, v: usize) -> Option<usize> {
        let m = self.mate[v];
        (m != NONE).then_some(m as usize)
    }

    /// The blossoms containing vertex `v`, innermost first.
    fn chain(&self, v: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut b = self.parent[v];
        while b != NONE {
            out.push(b);
            b = self.parent[b as usize];
        }
        out
    }

    /// Whether edge `i`-`j` (either weight, 0 included) has slack 0 in the dual of the
    /// current solve: `u_i + u_j - 2 w_ij` plus twice the dual of every blossom holding
    /// both ends. After a solve the duals are optimal, so by complementary slackness every
    /// maximum-weight matching (of the weights in the matrix) uses only edges for which
    /// this holds. Ends in different top-level blossoms have no blossom in common.
    #[must_use]
    pub fn is_tight_full(&self, i: usize, j: usize) -> bool {
        if self.inblossom[i] != self.inblossom[j] {
            // No blossom in common.
            return self.dual[i].add(&self.dual[j]) == self.w2(i as u32, j as u32);
        }
        let (ci, cj) = (self.chain(i), self.chain(j));
        let mut s = self.dual[i].add(&self.dual[j]);
        for (bi, bj) in ci.iter().rev().zip(cj.iter().rev()) {
            if bi != bj {
                break;
            }
            s.add_assign(&self.dual[*bi as usize].double());
        }
        s == self.w2(i as u32, j as u32)
    }

    /// Whether vertex `v`'s dual is positive (it is matched in every optimum: an exposed
    /// vertex has dual 0 in optimal duals, by complementary slackness).
    #[must_use]
    pub fn dual_positive(&self, v: usize) -> bool {
        !self.dual[v].is_zero()
    }

    /// The live vertices, in the order the stages scan them.
    #[must_use]
    pub fn alive(&self) -> &[u32] {
        &self.alive_list
    }

    /// Whether edge `i`-`j` has a positive weight and is tight ([`Matcher::is_tight_full`]).
    #[must_use]
    pub fn is_tight_edge(&self, i: usize, j: usize) -> bool {
        !self.w2(i as u32, j as u32).is_zero() && self.is_tight_full(i, j)
    }

    /// For an optimum `M'` (given by `mate`; optimal with the current duals) pairing
    /// `p`-`a` and `c`-`b` (four distinct vertices), with `p`-`c` tight: pairs that,
    /// with `p`-`c`, replace `p`-`a`, `c`-`b` (and, on a longer path, `x`-`y` of `M'`)
    /// and give another optimum, or `None` if none was found. Tried: `a`-`b`, then
    /// `a`-`x`, `y`-`b` for each pair `x`-`y` of `M'` whose ends `free` allows. The
    /// result is checked by complementary slackness with the same duals: every new pair
    /// a tight edge of positive weight, the same vertices exposed, and every blossom of
    /// positive dual left with exactly one vertex not matched inside it (the number of its
    /// changed vertices whose partner is outside it does not change).
    pub fn reroute(
        &self,
        [p, a, c, b]: [usize; 4],
        mate: impl Fn(usize) -> Option<usize>,
        free: impl Fn(usize) -> bool,
    ) -> Option<Vec<(usize, usize)>> {
        if self.is_tight_edge(a, b) && self.keeps_full(&[(p, c), (a, b)], &[(p, a), (c, b)]) {
            return Some(vec![(a, b)]);
        }
        for &x in &self.alive_list {
            let x = x as usize;
            if x == p || x == a || x == c || x == b || !free(x) {
                continue;
            }
            let Some(y) = mate(x) else { continue };
            if y == p || y == a || y == c || y == b || !free(y) {
                continue;
            }
            if self.is_tight_edge(a, x)
                && self.is_tight_edge(y, b)
                && self.keeps_full(&[(p, c), (a, x), (y, b)], &[(p, a), (c, b), (x, y)])
            {
                return Some(vec![(a, x), (y, b)]);
            }
        }
        None
    }

    /// Whether replacing the pairs `old` by `new` (on the same vertices) leaves every
    /// blossom of positive dual with as many of those vertices matched outside it.
    #[must_use]
    pub fn keeps_full(&self, new: &[(usize, usize)], old: &[(usize, usize)]) -> bool {
        let verts: Vec<usize> = old.iter().flat_map(|&(x, y)| [x, y]).collect();
        let chains: Vec<Vec<u32>> = verts.iter().map(|&v| self.chain(v)).collect();
        let index = |v: usize| verts.iter().position(|&u| u == v).expect("same vertices");
        let partner = |pairs: &[(usize, usize)], v: usize| {
            pairs
                .iter()
                .find_map(|&(x, y)| {
                    if x == v {
                        Some(y)
                    } else if y == v {
                        Some(x)
                    } else {
                        None
                    }
                })
                .expect("every vertex paired")
        };
        for chain in &chains {
            for &blossom in chain {
                if self.dual[blossom as usize].is_zero() {
                    continue;
                }
                let mut delta = 0i32;
                for (k, &v) in verts.iter().enumerate() {
                    if !chains[k].contains(&blossom) {
                        continue;
                    }
                    delta += i32::from(!chains[index(partner(new, v))].contains(&blossom));
                    delta -= i32::from(!chains[index(partner(old, v))].contains(&blossom));
                }
                if delta != 0 {
                    return false;
                }
            }
        }
        true
    }

    fn w2(&self, i: u32, j: u32) -> Wide<N> {
        self.table[self.wid[at(self.n, i as usize, j as usize)] as usize]
    }

    #[inline(always)]
    fn slack(&self, e: Ep) -> Wide<N> {
        let w2 = self.w2(e.from, e.to);
        debug_assert!(
            self.dual[e.from as usize].add(&self.dual[e.to as usize]) >= w2,
            "negative slack"
        );
        self.dual[e.from as usize].add_sub(&self.dual[e.to as usize], &w2)
    }

    /// The slack of `bestedge[x]` (which must be set), from the cache when current.
    #[inline(always)]
    fn best_slack_of(&mut self, x: usize) -> Wide<N> {
        if self.best[x].generation == self.generation {
            return self.best[x].slack;
        }
        self.refresh_best_slack(x)
    }

    #[inline(never)]
    fn refresh_best_slack(&mut self, x: usize) -> Wide<N> {
        let s = self.slack(self.bestedge[x]);
        self.best[x] = BestSlack {
            generation: self.generation,
            slack: s,
        };
        s
    }

    /// List `v` among the S-vertices of the stage (once).
    #[inline]
    fn mark_s(&mut self, v: u32) {
        if self.s_mark[v as usize] != self.stage {
            self.s_mark[v as usize] = self.stage;
            self.s_list.push(v);
        }
    }

    /// List the vertices of blossom `b` among the S-vertices of the stage.
    fn mark_s_leaves(&mut self, b: u32) {
        if (b as usize) < self.n {
            self.mark_s(b);
            return;
        }
        let mut leaves = std::mem::take(&mut self.fresh_leaves);
        leaves.clear();
        self.leaves(b, &mut leaves);
        for &x in &leaves {
            self.mark_s(x);
        }
        self.fresh_leaves = leaves;
    }

    /// List non-trivial blossom `b` among the labelled blossoms of the stage (once).
    #[inline]
    fn mark_b(&mut self, b: u32) {
        if b as usize >= self.n && self.b_mark[b as usize] != self.stage {
            self.b_mark[b as usize] = self.stage;
            self.b_list.push(b);
        }
    }

    /// Record `e` as the best edge of `x`, with its slack `s`.
    #[inline]
    fn set_best(&mut self, x: usize, e: Ep, s: Wide<N>) {
        if x < self.n && self.be_mark[x] != self.stage {
            self.be_mark[x] = self.stage;
            self.be_list.push(x as u32);
        }
        self.bestedge[x] = e;
        self.best[x] = BestSlack {
            generation: self.generation,
            slack: s,
        };
    }

    /// Append the vertices of blossom `b` to `out`, depth first in child order
    /// (recursion instead of an allocated stack: nesting is at most n / 2 deep).
    fn leaves(&self, b: u32, out: &mut Vec<u32>) {
        if (b as usize) < self.n {
            out.push(b);
            return;
        }
        for &c in &self.childs[b as usize] {
            self.leaves(c, out);
        }
    }

    /// Set `inblossom` of every vertex of blossom `b` to `top`.
    fn set_inblossom(&mut self, b: u32, top: u32) {
        if (b as usize) < self.n {
            self.inblossom[b as usize] = top;
            return;
        }
        for k in 0..self.childs[b as usize].len() {
            let c = self.childs[b as usize][k];
            self.set_inblossom(c, top);
        }
    }

    fn leaves_of(&self, b: u32) -> Vec<u32> {
        let mut v = Vec::new();
        self.leaves(b, &mut v);
        v
    }

    fn is_tight(&self, i: u32, j: u32) -> bool {
        let s = self.dual[i as usize].add(&self.dual[j as usize]);
        s == self.w2(i, j)
    }

    /// Make `x` a trivial top-level blossom by expanding only the blossoms that contain it,
    /// from the top down: each expanded blossom's dual is pushed onto its vertices and its
    /// sub-blossoms become top-level blossoms with their structure and duals intact.
    ///
    /// Why this keeps the invariants: pushing `z_B` onto every vertex of `B` adds `2 z_B`
    /// to the slack of each edge inside `B` (which loses the `2 z_B` of `B` itself: no
    /// change) and `z_B` to each edge leaving `B`. The sub-blossoms stay full (their
    /// vertices are matched as before) and their edges stay tight. Only the base of `B`
    /// has a matched edge leaving `B`; when that edge stops being tight both ends are
    /// unmatched and queued in `work`, and an exposed base that received a positive dual
    /// is queued too (exposed vertices need dual 0 or to join the roots). Earlier versions
    /// dissolved the whole top-level blossom, and the search then had to rebuild all its
    /// nested sub-blossoms; this reaches another optimum of equal weight (see the proof in
    /// `dutch/mod.rs`, `run`, on why the engine's decisions do not depend on which).
    fn flatten_top(&mut self, x: u32, work: &mut Vec<u32>) {
        loop {
            let b = self.inblossom[x as usize];
            if (b as usize) < self.n {
                return;
            }
            self.lift(b, work);
        }
    }

    /// Expand top-level blossom `b` one level (see [`Matcher::flatten_top`]).
    fn lift(&mut self, b: u32, work: &mut Vec<u32>) {
        let bi = b as usize;
        let z = self.dual[bi];
        if !z.is_zero() {
            let mut leaves = std::mem::take(&mut self.fresh_leaves);
            leaves.clear();
            self.leaves(b, &mut leaves);
            for &l in &leaves {
                self.dual[l as usize].add_assign(&z);
            }
            self.fresh_leaves = leaves;
        }
        let bv = self.base[bi];
        let childs = std::mem::take(&mut self.childs[bi]);
        for &c in &childs {
            self.parent[c as usize] = NONE;
            self.set_inblossom(c, c);
        }
        self.endps[bi].clear();
        self.base[bi] = NONE;
        self.parent[bi] = NONE;
        self.bestedges[bi] = None;
        self.bestedge[bi] = Ep::NONE;
        self.label[bi] = 0;
        self.labelend[bi] = Ep::NONE;
        self.dual[bi] = Wide::ZERO;
        self.near[bi].clear();
        self.unused.push(b);
        if z.is_zero() {
            return;
        }
        let m = self.mate[bv as usize];
        if m == NONE {
            work.push(bv);
        } else if !self.is_tight(bv, m) {
            self.mate[bv as usize] = NONE;
            self.mate[m as usize] = NONE;
            work.push(bv);
            work.push(m);
        }
    }

    /// Try to keep the optimum after the edges of trivial vertex `x` changed, by moving
    /// only `x`'s dual: to keep its matched edge tight (or 0 when exposed), provided every
    /// edge around `x` stays feasible. Feasible duals plus complementary slackness still
    /// certify that the matching is optimal, so no augmentation is needed.
    fn repair_dual(&mut self, x: u32) -> bool {
        let xi = x as usize;
        if !self.alive[xi] || self.inblossom[xi] != x {
            return false;
        }
        let m = self.mate[xi];
        let u = if m == NONE {
            Wide::ZERO
        } else {
            let w2 = self.w2(x, m);
            let um = self.dual[m as usize];
            if w2.is_zero() || w2 < um {
                return false;
            }
            w2.sub(&um)
        };
        for &y in &self.alive_list {
            if y == x {
                continue;
            }
            let id = self.wid[at(self.n, xi, y as usize)];
            if id == 0 {
                continue;
            }
            let w2 = self.table[id as usize];
            if u.add(&self.dual[y as usize]) < w2 {
                return false;
            }
        }
        self.dual[xi] = u;
        true
    }

    /// Drop the `near` caches of the blossoms containing vertex `v` (an edge of `v` changed).
    /// Within one solve (one `drop_stamp`) each blossom is walked once: the chain above a
    /// blossom already cleared was cleared with it.
    fn drop_near(&mut self, v: u32) {
        let mut b = self.parent[v as usize];
        while b != NONE && self.drop_mark[b as usize] != self.drop_stamp {
            self.drop_mark[b as usize] = self.drop_stamp;
            self.near[b as usize].clear();
            b = self.parent[b as usize];
        }
    }

    /// Fill `near[b]` if it is not filled: from the sub-blossoms' own caches where they
    /// have one, from the edges of the other vertices directly.
    fn ensure_near(&mut self, b: u32) {
        let bi = b as usize;
        let n = self.n;
        if self.near[bi].len() == n {
            return;
        }
        let mut near = std::mem::take(&mut self.near[bi]);
        near.clear();
        near.resize(n, NONE);
        // Compared by `u_x + (top - w2)`, which orders the vertices of the blossom as
        // their slacks to `w` do but cannot wrap: an edge inside an enclosing blossom can
        // have a negative slack without that blossom's dual, and the cache must still be
        // right once that blossom is expanded.
        let top = self.table_max;
        let mut slack = std::mem::take(&mut self.near_slack);
        let mut leaves = std::mem::take(&mut self.fresh_leaves);
        leaves.clear();
        self.leaves(b, &mut leaves);
        for &l in &leaves {
            self.in_b[l as usize] = true;
        }
        for k in 0..self.childs[bi].len() {
            let c = self.childs[bi][k];
            let ci = c as usize;
            if ci >= n && self.near[ci].len() == n {
                for &w in &self.alive_list {
                    let wi = w as usize;
                    let x = self.near[ci][wi];
                    if x == NONE || self.in_b[wi] {
                        continue;
                    }
                    let id = self.wid[at(n, x as usize, wi)];
                    let s = self.dual[x as usize].add_sub(&top, &self.table[id as usize]);
                    keep_least(&mut near, &mut slack, wi, x, s);
                }
            } else {
                let start = leaves.len();
                self.leaves(c, &mut leaves);
                for j in start..leaves.len() {
                    let x = leaves[j];
                    let row = at(n, x as usize, 0);
                    let dx = self.dual[x as usize];
                    for &w in &self.alive_list {
                        let wi = w as usize;
                        let id = self.wid[row + wi];
                        if id == 0 || self.in_b[wi] {
                            continue;
                        }
                        let s = dx.add_sub(&top, &self.table[id as usize]);
                        keep_least(&mut near, &mut slack, wi, x, s);
                    }
                }
                leaves.truncate(start);
            }
        }
        for &l in &leaves {
            self.in_b[l as usize] = false;
        }
        self.fresh_leaves = leaves;
        self.near_slack = slack;
        self.near[bi] = near;
    }

    /// Apply the pending weight changes to the weight matrix, as [`Matcher::solve`] does
    /// first. A vertex whose changes are all free ([`Matcher::change_is_free`]) needs no
    /// repair; the others are listed for the next solve. Until then the current matching
    /// and duals are an optimum if no vertex was listed ([`Matcher::has_deferred`]).
    pub fn apply_weights(&mut self) {
        let touched = std::mem::take(&mut self.touched);
        self.drop_stamp += 1;
        // Blossom edges (both ends as `(min, max)`), listed when first needed.
        let mut blossom_edges: Option<HashSet<(u32, u32)>> = None;
        for &x in &touched {
            let xi = x as usize;
            self.is_touched[xi] = false;
            let mut list = std::mem::take(&mut self.pending[xi]);
            let mut changed = false;
            let mut free = true;
            for &(y, id) in &list {
                let yi = y as usize;
                let old = self.wid[at(self.n, xi, yi)];
                if self.alive[xi] && self.alive[yi] && old != id {
                    if free {
                        free = self.change_is_free(x, y, old, id, &mut blossom_edges);
                    }
                    self.wid[at(self.n, xi, yi)] = id;
                    self.wid[at(self.n, yi, xi)] = id;
                    self.drop_near(y);
                    changed = true;
                }
            }
            list.clear();
            self.pending[xi] = list;
            if changed {
                self.drop_near(x);
                if !free {
                    self.deferred.push(x);
                }
            }
        }
    }

    /// Whether applied weight changes wait for a repair at the next solve.
    #[must_use]
    pub fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// Repair the optimum after weight changes and removals: vertices whose dual can
    /// absorb their changes keep their place; the others are exposed and re-matched.
    pub fn solve(&mut self) {
        let killed = std::mem::take(&mut self.killed);
        let mut dead = vec![false; self.n];
        for &k in &killed {
            dead[k as usize] = true;
        }
        self.apply_weights();
        let mut unsettled = std::mem::take(&mut self.deferred);
        let mut seen = vec![false; self.n];
        unsettled.retain(|&x| !std::mem::replace(&mut seen[x as usize], true));
        let mut work = killed.clone();
        for &x in &unsettled {
            if !dead[x as usize] && !self.repair_dual(x) {
                work.push(x);
            }
        }
        self.reoptimize(work, &dead);
        for &k in &killed {
            self.mate[k as usize] = self.fixed[k as usize];
        }
        let alive = &self.alive;
        self.alive_list.retain(|&v| alive[v as usize]);
    }

    /// Whether changing the weight of edge `x`-`y` from index `old` to `new` (not yet
    /// applied) keeps the current matching, duals and blossoms an optimum as they are: the
    /// edge is neither matched nor an edge of a blossom's cycle (those must stay tight),
    /// and its slack stays non-negative (always, when the weight falls). Feasible duals,
    /// tight matched and blossom edges, full blossoms of positive dual and exposed
    /// vertices of dual 0 are untouched, so the optimality conditions still hold and the
    /// change needs no repair; the `near` caches of the blossoms holding `x` or `y` are
    /// dropped by the caller as for any change. (Which optimum the matcher then holds
    /// does not matter to the engine: `dutch/mod.rs`, `run`.)
    fn change_is_free(
        &self,
        x: u32,
        y: u32,
        old: u32,
        new: u32,
        blossom_edges: &mut Option<HashSet<(u32, u32)>>,
    ) -> bool {
        let (xi, yi) = (x as usize, y as usize);
        if self.mate[xi] == y {
            return false;
        }
        if self.inblossom[xi] == self.inblossom[yi] {
            let edges = blossom_edges.get_or_insert_with(|| {
                let mut set = HashSet::new();
                for b in self.n..2 * self.n {
                    if self.base[b] == NONE {
                        continue;
                    }
                    for e in &self.endps[b] {
                        set.insert((e.from.min(e.to), e.from.max(e.to)));
                    }
                }
                set
            });
            if edges.contains(&(x.min(y), x.max(y))) {
                return false;
            }
        }
        let w_new = self.table[new as usize];
        if w_new <= self.table[old as usize] {
            return true;
        }
        // The slack with the new weight, blossom duals included, must not be negative.
        let mut s = self.dual[xi].add(&self.dual[yi]);
        if self.inblossom[xi] == self.inblossom[yi] {
            let (cx, cy) = (self.chain(xi), self.chain(yi));
            for (bx, by) in cx.iter().rev().zip(cy.iter().rev()) {
                if bx != by {
                    break;
                }
                s.add_assign(&self.dual[*bx as usize].double());
            }
        }
        s >= w_new
    }

    /// Expose the vertices in `work` (and whatever that unsettles), give the exposed
    /// vertices a common feasible dual, and run stages until optimal again. Vertices
    /// marked `dead` are taken out of the graph instead of being exposed.
    fn reoptimize(&mut self, mut work: Vec<u32>, dead: &[bool]) {
        let mut in_e = vec![false; self.n];
        let mut exposed: Vec<u32> = Vec::new();
        while let Some(x) = work.pop() {
            let xi = x as usize;
            if in_e[xi] || !self.alive[xi] {
                continue;
            }
            self.flatten_top(x, &mut work);
            let m = self.mate[xi];
            if m != NONE {
                self.mate[xi] = NONE;
                self.mate[m as usize] = NONE;
                work.push(m);
            }
            if dead[xi] {
                self.alive[xi] = false;
            } else {
                in_e[xi] = true;
                exposed.push(x);
            }
        }
        if exposed.is_empty() {
            return;
        }
        // A common dual for all newly exposed vertices, high enough for feasibility.
        let mut u = Wide::<N>::ZERO;
        for &x in &exposed {
            for &y in &self.alive_list {
                if y == x || !self.alive[y as usize] {
                    continue;
                }
                let id = self.wid[at(self.n, x as usize, y as usize)];
                if id == 0 {
                    continue;
                }
                let w2 = self.table[id as usize];
                if in_e[y as usize] {
                    let w = w2.half();
                    if w > u {
                        u = w;
                    }
                } else {
                    let dy = self.dual[y as usize];
                    if w2 > dy {
                        let need = w2.sub(&dy);
                        if need > u {
                            u = need;
                        }
                    }
                }
            }
        }
        for &x in &exposed {
            self.dual[x as usize] = u;
        }
        let alive = &self.alive;
        self.alive_list.retain(|&v| alive[v as usize]);
        // Grow trees from a batch of roots at a time: the exposed vertices waiting their
        // turn keep the common dual (feasible) and can end augmenting paths. All roots of
        // a batch share one dual, which keeps the parity invariant of the stages.
        for chunk in exposed.chunks(root_batch(self.n)) {
            for &x in chunk {
                self.active[x as usize] = true;
            }
            self.run_stages();
            for &x in chunk {
                self.active[x as usize] = false;
            }
        }
    }

    /// Verify the optimality conditions (tests only).
    #[cfg(test)]
    pub fn check(&self) -> Result<(), String> {
        let n = self.n;
        let mut chain: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 0..n {
            let mut b = self.parent[v];
            while b != NONE {
                chain[v].push(b);
                b = self.parent[b as usize];
            }
        }
        for &i in &self.alive_list {
            for &j in &self.alive_list {
                if j <= i {
                    continue;
                }
                let w = self.w2(i, j);
                if w.is_zero() {
                    if self.mate[i as usize] == j {
                        return Err(format!("zero edge matched {i}-{j}"));
                    }
                    continue;
                }
                let mut s = self.dual[i as usize].add(&self.dual[j as usize]);
                for b in &chain[i as usize] {
                    if chain[j as usize].contains(b) {
                        s = s.add(&self.dual[*b as usize].double());
                    }
                }
                let w2 = w; // stored doubled
                if s < w2 {
                    return Err(format!("negative slack {i}-{j}"));
                }
                if self.mate[i as usize] == j && s != w2 {
                    return Err(format!("matched edge {i}-{j} not tight"));
                }
            }
            if self.mate[i as usize] == NONE && !self.dual[i as usize].is_zero() {
                return Err(format!("exposed {i} with dual"));
            }
        }
        for b in n..2 * n {
            self.near_err(b)?;
        }
        Ok(())
    }

    /// Every filled `near` cache names, for each outside vertex, a vertex of the blossom
    /// with an edge of least slack to it.
    #[cfg(test)]
    fn near_err(&self, b: usize) -> Result<(), String> {
        let n = self.n;
        if self.near[b].is_empty() {
            return Ok(());
        }
        if self.base[b] == NONE {
            return Err(format!("cache of freed blossom {b}"));
        }
        let leaves = self.leaves_of(b as u32);
        let mut top = b as u32;
        while self.parent[top as usize] != NONE {
            top = self.parent[top as usize];
        }
        for &l in &leaves {
            if self.inblossom[l as usize] != top {
                return Err(format!(
                    "leaf {l} of {b} has inblossom {} not {top}",
                    self.inblossom[l as usize]
                ));
            }
        }
        for &w in &self.alive_list {
            if leaves.contains(&w) {
                continue;
            }
            let slack = |x: u32| {
                let id = self.wid[at(n, x as usize, w as usize)];
                (id != 0).then(|| {
                    self.dual[x as usize].add_sub(&self.table_max, &self.table[id as usize])
                })
            };
            let best = leaves.iter().filter_map(|&x| slack(x)).min();
            let x = self.near[b][w as usize];
            let got = if x == NONE { None } else { slack(x) };
            if got != best || (x != NONE && !leaves.contains(&x)) {
                return Err(format!("stale near cache of blossom {b} at {w}"));
            }
        }
        Ok(())
    }

    fn assign_label(&mut self, w: u32, t: u8, p: Ep) {
        let b = self.inblossom[w as usize];
        let (wi, bi) = (w as usize, b as usize);
        self.label[wi] = t;
        self.label[bi] = t;
        self.labelend[wi] = p;
        self.labelend[bi] = p;
        self.bestedge[wi] = Ep::NONE;
        self.bestedge[bi] = Ep::NONE;
        self.mark_b(b);
        if t == 1 {
            // A blossom is scanned as one unit (see `near`).
            self.queue.push(b);
            self.mark_s_leaves(b);
        } else {
            let base = self.base[bi];
            let m = self.mate[base as usize];
            debug_assert!(m != NONE);
            self.assign_label(m, 1, Ep { from: m, to: base });
        }
    }

    fn scan_blossom(&mut self, v: u32, w: u32) -> u32 {
        let mut path = Vec::new();
        let mut base = NONE;
        let (mut v, mut w) = (v, w);
        while v != NONE || w != NONE {
            let b = self.inblossom[v as usize] as usize;
            if self.label[b] & 4 != 0 {
                base = self.base[b];
                break;
            }
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b].is_none() {
                v = NONE;
            } else {
                let t = self.labelend[b].to;
                let bt = self.inblossom[t as usize] as usize;
                v = self.labelend[bt].to;
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = 1;
        }
        base
    }

    fn add_blossom(&mut self, base: u32, v: u32, w: u32) {
        let bb = self.inblossom[base as usize];
        let mut bv = self.inblossom[v as usize];
        let mut bw = self.inblossom[w as usize];
        let b = self.unused.pop().expect("a free blossom slot");
        let bi = b as usize;
        self.base[bi] = base;
        self.parent[bi] = NONE;
        self.parent[bb as usize] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.parent[bv as usize] = b;
            path.push(bv);
            let le = self.labelend[bv as usize];
            endps.push(le);
            bv = self.inblossom[le.to as usize];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(Ep { from: w, to: v });
        while bw != bb {
            self.parent[bw as usize] = b;
            path.push(bw);
            let le = self.labelend[bw as usize];
            endps.push(le.flip());
            bw = self.inblossom[le.to as usize];
        }
        self.label[bi] = 1;
        self.mark_b(b);
        self.labelend[bi] = self.labelend[bb as usize];
        self.dual[bi] = Wide::ZERO;
        for &c in &path {
            if self.label[c as usize] == 2 {
                self.queue.push(c);
                self.mark_s_leaves(c);
            }
        }
        let leaves = self.leaves_of_path(&path);
        for &l in &leaves {
            self.inblossom[l as usize] = b;
        }
        self.childs[bi] = path.clone();
        self.endps[bi] = endps;
        // Best edges from the new blossom to every other S-blossom: an edge of least
        // slack to each (which one among equals does not matter). The slack of the best
        // edge so far is kept beside it (fewer random reads of the weight matrix).
        let mut best_to = std::mem::take(&mut self.best_to);
        let mut best_to_slack = std::mem::take(&mut self.best_to_slack);
        let mut touched_to: Vec<u32> = Vec::new();
        let mut leaves = Vec::new();
        let mut loose = std::mem::take(&mut self.loose);
        let mut units = std::mem::take(&mut self.units);
        let mut units_ready = false;
        for &c in &path {
            let ci = c as usize;
            match self.bestedges[ci].take() {
                Some(list) => {
                    for k in list {
                        let (mut i, mut j) = (k.from, k.to);
                        if self.inblossom[j as usize] == b {
                            std::mem::swap(&mut i, &mut j);
                        }
                        let bj = self.inblossom[j as usize];
                        let bji = bj as usize;
                        if bj != b && self.label[bji] == 1 {
                            let e = Ep { from: i, to: j };
                            let s = self.slack(e);
                            offer_best(&mut best_to, &mut best_to_slack, &mut touched_to, bj, e, s);
                        }
                    }
                }
                None if ci >= self.n && self.near[ci].len() == self.n => {
                    // A sub-blossom with a `near` cache: its least-slack edge to each
                    // S-vertex.
                    for k in 0..self.s_list.len() {
                        let y = self.s_list[k];
                        let yi = y as usize;
                        let x = self.near[ci][yi];
                        if x == NONE {
                            continue;
                        }
                        let bj = self.inblossom[yi];
                        let bji = bj as usize;
                        if bj == b || self.label[bji] != 1 {
                            continue;
                        }
                        let e = Ep { from: x, to: y };
                        let s = self.slack(e);
                        offer_best(&mut best_to, &mut best_to_slack, &mut touched_to, bj, e, s);
                    }
                }
                None => {
                    // Only S-vertices can end an edge to another S-blossom, so the
                    // stage's S-list replaces the scan of all vertices, and an S-blossom
                    // with a `near` cache is one lookup per vertex `x` instead of one per
                    // vertex of it.
                    if !units_ready {
                        self.collect_s_units(b, &mut loose, &mut units);
                        units_ready = true;
                    }
                    leaves.clear();
                    self.leaves(c, &mut leaves);
                    for &x in &leaves {
                        let xi = x as usize;
                        let row = at(self.n, xi, 0);
                        let dx = self.dual[xi];
                        for &y in &loose {
                            let yi = y as usize;
                            let id = self.wid[row + yi];
                            if y == x || id == 0 {
                                continue;
                            }
                            let s = dx.add_sub(&self.dual[yi], &self.table[id as usize]);
                            let e = Ep { from: x, to: y };
                            offer_best(
                                &mut best_to,
                                &mut best_to_slack,
                                &mut touched_to,
                                self.inblossom[yi],
                                e,
                                s,
                            );
                        }
                        for &bj in &units {
                            let y = self.near[bj as usize][xi];
                            if y == NONE {
                                continue;
                            }
                            let e = Ep { from: x, to: y };
                            let s = self.slack(e);
                            offer_best(&mut best_to, &mut best_to_slack, &mut touched_to, bj, e, s);
                        }
                    }
                }
            }
            self.bestedges[ci] = None;
            self.bestedge[ci] = Ep::NONE;
        }
        self.loose = loose;
        self.units = units;
        touched_to.sort_unstable();
        let mut list: Vec<Ep> = Vec::with_capacity(touched_to.len());
        let mut best = Ep::NONE;
        let mut best_slack = Wide::ZERO;
        for &t in &touched_to {
            let ti = t as usize;
            let k = best_to[ti];
            list.push(k);
            if best.is_none() || best_to_slack[ti] < best_slack {
                best = k;
                best_slack = best_to_slack[ti];
            }
            best_to[ti] = Ep::NONE;
        }
        self.best_to = best_to;
        self.best_to_slack = best_to_slack;
        self.bestedges[bi] = Some(list);
        self.set_best(bi, best, best_slack);
    }

    /// The other top-level S-blossoms of the stage, for `add_blossom` making blossom `b`:
    /// those with a `near` cache in `units` (once each), the vertices of the others in
    /// `loose`.
    fn collect_s_units(&mut self, b: u32, loose: &mut Vec<u32>, units: &mut Vec<u32>) {
        loose.clear();
        units.clear();
        self.unit_stamp += 1;
        for &y in &self.s_list {
            let bj = self.inblossom[y as usize];
            let bji = bj as usize;
            if bj == b || self.label[bji] != 1 {
                continue;
            }
            if bji >= self.n && self.near[bji].len() == self.n {
                if self.unit_mark[bji] != self.unit_stamp {
                    self.unit_mark[bji] = self.unit_stamp;
                    units.push(bj);
                }
            } else {
                loose.push(y);
            }
        }
    }

    fn leaves_of_path(&self, path: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        for &c in path {
            self.leaves(c, &mut out);
        }
        out
    }

    fn expand_blossom(&mut self, b: u32, endstage: bool) {
        let bi = b as usize;
        let childs = std::mem::take(&mut self.childs[bi]);
        let endps = std::mem::take(&mut self.endps[bi]);
        for &s in &childs {
            let si = s as usize;
            self.parent[si] = NONE;
            if si < self.n {
                self.inblossom[si] = s;
            } else if endstage && self.dual[si].is_zero() {
                self.expand_blossom(s, endstage);
            } else {
                self.set_inblossom(s, s);
            }
        }
        if !endstage && self.label[bi] == 2 {
            let len = childs.len() as isize;
            let idx = |j: isize| -> usize {
                if j < 0 {
                    (j + len) as usize
                } else {
                    j as usize
                }
            };
            let entrychild = self.inblossom[self.labelend[bi].from as usize];
            let mut j = childs
                .iter()
                .position(|&c| c == entrychild)
                .expect("entry child") as isize;
            let (jstep, endptrick): (isize, isize) = if j & 1 != 0 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let trick = |e: Ep| if endptrick == 1 { e.flip() } else { e };
            let mut p = self.labelend[bi];
            while j != 0 {
                self.label[p.from as usize] = 0;
                let e = endps[idx(j - endptrick)];
                // endpoint[e ^ endptrick ^ 1]
                let e2 = if endptrick == 1 { e } else { e.flip() };
                self.label[e2.to as usize] = 0;
                self.assign_label(p.from, 2, p);
                j += jstep;
                p = trick(endps[idx(j - endptrick)]);
                j += jstep;
            }
            let bv = childs[idx(j)];
            self.label[p.from as usize] = 2;
            self.label[bv as usize] = 2;
            self.mark_b(bv);
            self.labelend[p.from as usize] = p;
            self.labelend[bv as usize] = p;
            self.bestedge[bv as usize] = Ep::NONE;
            j += jstep;
            while childs[idx(j)] != entrychild {
                let bv = childs[idx(j)];
                if self.label[bv as usize] == 1 {
                    j += jstep;
                    continue;
                }
                let found = self
                    .leaves_of(bv)
                    .into_iter()
                    .find(|&v| self.label[v as usize] != 0);
                if let Some(v) = found {
                    self.label[v as usize] = 0;
                    let m = self.mate[self.base[bv as usize] as usize];
                    self.label[m as usize] = 0;
                    let le = self.labelend[v as usize];
                    self.assign_label(v, 2, le);
                }
                j += jstep;
            }
        }
        self.label[bi] = 0;
        self.labelend[bi] = Ep::NONE;
        self.base[bi] = NONE;
        self.bestedges[bi] = None;
        self.bestedge[bi] = Ep::NONE;
        self.dual[bi] = Wide::ZERO;
        self.near[bi].clear();
        self.unused.push(b);
    }

    fn augment_blossom(&mut self, b: u32, v: u32) {
        let bi = b as usize;
        let mut t = v;
        while self.parent[t as usize] != b {
            t = self.parent[t as usize];
        }
        if t as usize >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.childs[bi].len() as isize;
        let idx = |j: isize| -> usize {
            if j < 0 {
                (j + len) as usize
            } else {
                j as usize
            }
        };
        let i = self.childs[bi].iter().position(|&c| c == t).expect("child") as isize;
        let mut j = i;
        let (jstep, endptrick): (isize, isize) = if i & 1 != 0 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += jstep;
            let t1 = self.childs[bi][idx(j)];
            let e = self.endps[bi][idx(j - endptrick)];
            let p = if endptrick == 1 { e.flip() } else { e };
            if t1 as usize >= self.n {
                self.augment_blossom(t1, p.to);
            }
            j += jstep;
            let t2 = self.childs[bi][idx(j)];
            if t2 as usize >= self.n {
                self.augment_blossom(t2, p.from);
            }
            self.mate[p.to as usize] = p.from;
            self.mate[p.from as usize] = p.to;
        }
        let iu = i as usize;
        self.childs[bi].rotate_left(iu);
        self.endps[bi].rotate_left(iu);
        self.base[bi] = self.base[self.childs[bi][0] as usize];
        debug_assert_eq!(self.base[bi], v);
    }

    /// Walk from S-vertex `s` up to its root, flipping the alternating path; `s` gets
    /// `m` as its mate (`NONE` to leave it exposed).
    fn augment_side(&mut self, s: u32, m: u32) {
        let (mut s, mut m) = (s, m);
        loop {
            let bs = self.inblossom[s as usize];
            if bs as usize >= self.n {
                self.augment_blossom(bs, s);
            }
            self.mate[s as usize] = m;
            let le = self.labelend[bs as usize];
            if le.is_none() {
                break;
            }
            let t = le.to;
            let bt = self.inblossom[t as usize];
            let lt = self.labelend[bt as usize];
            let next_s = lt.to;
            let j = lt.from;
            if bt as usize >= self.n {
                self.augment_blossom(bt, j);
            }
            self.mate[j as usize] = lt.to;
            s = next_s;
            m = j;
        }
    }

    fn run_stages(&mut self) {
        let n = self.n;
        loop {
            self.generation += 1;
            for x in self.label.iter_mut() {
                *x = 0;
            }
            for x in self.bestedge.iter_mut() {
                *x = Ep::NONE;
            }
            for x in self.bestedges[n..].iter_mut() {
                *x = None;
            }
            self.queue.clear();
            self.stage += 1;
            self.s_list.clear();
            self.be_list.clear();
            self.b_list.clear();
            let mut any_root = false;
            for k in 0..self.alive_list.len() {
                let v = self.alive_list[k];
                let vi = v as usize;
                if self.active[vi]
                    && self.mate[vi] == NONE
                    && self.label[self.inblossom[vi] as usize] == 0
                    && !self.dual[vi].is_zero()
                {
                    self.assign_label(v, 1, Ep::NONE);
                    any_root = true;
                }
            }
            if !any_root {
                break;
            }
            loop {
                if self.scan_queue() {
                    break;
                }
                if self.dual_step() {
                    break;
                }
            }
            for b in n..2 * n {
                if self.parent[b] == NONE
                    && self.base[b] != NONE
                    && self.label[b] == 1
                    && self.dual[b].is_zero()
                {
                    self.expand_blossom(b as u32, true);
                }
            }
        }
    }

    /// Grow the forest from the queued S-vertices and S-blossoms; true if the matching
    /// changed. A queued blossom is scanned through its `near` cache: for each outside
    /// vertex only its least-slack edge matters (a tight one grows the forest once, and
    /// the best edges keep the least slack).
    fn scan_queue(&mut self) -> bool {
        let n = self.n;
        while let Some(item) = self.queue.pop() {
            if (item as usize) < n {
                let v = item;
                let dv = self.dual[v as usize];
                let row = at(n, v as usize, 0);
                let mut k = 0;
                // The edges that change nothing are skipped by `next_acting` (read-only,
                // so its loop keeps the arrays in registers); `scan_edge` sees the others.
                while let Some(found) = self.next_acting(k, |_| v, Some(row)) {
                    let w = self.alive_list[found];
                    let id = self.wid[row + w as usize];
                    if self.scan_edge(v, w, id, &dv) {
                        return true;
                    }
                    k = found + 1;
                }
            } else {
                self.ensure_near(item);
                let near = std::mem::take(&mut self.near[item as usize]);
                let mut k = 0;
                while let Some(found) = self.next_acting(k, |w| near[w], None) {
                    let w = self.alive_list[found];
                    let x = near[w as usize];
                    let id = self.wid[at(n, x as usize, w as usize)];
                    let dx = self.dual[x as usize];
                    if self.scan_edge(x, w, id, &dx) {
                        self.near[item as usize] = near;
                        return true;
                    }
                    k = found + 1;
                }
                self.near[item as usize] = near;
            }
        }
        false
    }

    /// The first position `k >= from` of `alive_list` whose edge `scan_edge` would act on,
    /// or `None`. The edge of `w = alive_list[k]` leaves `x = src(w)` (no edge when `x` is
    /// `NONE`); `row` is the start of `x`'s row of the weight matrix when `x` is the same
    /// for every `w` (a vertex's scan), `None` otherwise (a blossom's scan through `near`).
    ///
    /// Skipped are exactly the edges on which `scan_edge` returns false without changing
    /// anything: inside one blossom, to a T-labelled vertex, without weight, or with a
    /// positive slack that is not less than the best edge's cached slack. An edge whose
    /// comparison needs a best slack that is not cached is not skipped (`scan_edge`
    /// refreshes the cache), so the scan does the same as calling `scan_edge` on every
    /// edge, with fewer loads and bounds checks: the vertex arrays are borrowed once.
    #[inline(always)]
    fn next_acting(
        &self,
        from: usize,
        src: impl Fn(usize) -> u32,
        row: Option<usize>,
    ) -> Option<usize> {
        let n = self.n;
        let alive = &self.alive_list[..];
        let wid = &self.wid[..];
        let inblossom = &self.inblossom[..];
        let label = &self.label[..];
        let dual = &self.dual[..];
        let table = &self.table[..];
        let bestedge = &self.bestedge[..];
        let best = &self.best[..];
        let generation = self.generation;
        let fixed_x = if row.is_some() { src(0) } else { NONE };
        for (k, &w) in alive.iter().enumerate().skip(from) {
            let wi = w as usize;
            let x = if row.is_some() { fixed_x } else { src(wi) };
            if x == NONE {
                continue;
            }
            let xi = x as usize;
            let id = match row {
                Some(r) => wid[r + wi],
                None => wid[at(n, xi, wi)],
            };
            if id == 0 || w == x {
                continue;
            }
            let bx = inblossom[xi];
            let bw = inblossom[wi];
            if bx == bw {
                continue;
            }
            let (bxi, bwi) = (bx as usize, bw as usize);
            let lw = label[wi];
            let lbw = label[bwi];
            if lbw == 2 && lw != 0 {
                continue;
            }
            let kslack = dual[xi].add_sub(&dual[wi], &table[id as usize]);
            if kslack.is_zero() {
                return Some(k);
            }
            // The best edge compared with, as in `scan_edge`.
            let t = if lbw == 1 {
                bxi
            } else if lw == 0 {
                wi
            } else {
                continue;
            };
            if bestedge[t].is_none() || best[t].generation != generation || kslack < best[t].slack {
                return Some(k);
            }
        }
        None
    }

    /// Look at edge `v`-`w` (weight index `id`) from S-vertex `v` (dual `dv`); true if the
    /// matching changed.
    #[inline(always)]
    fn scan_edge(&mut self, v: u32, w: u32, id: u32, dv: &Wide<N>) -> bool {
        let wi = w as usize;
        // Cheap index tests first, the wide weight last.
        let bv = self.inblossom[v as usize];
        let bw = self.inblossom[wi];
        if w == v || bv == bw {
            return false;
        }
        let (bvi, bwi) = (bv as usize, bw as usize);
        // A vertex already labelled T needs nothing from this edge.
        if self.label[bwi] == 2 && self.label[wi] != 0 {
            return false;
        }
        if id == 0 {
            return false;
        }
        let w2 = self.table[id as usize];
        let e = Ep { from: v, to: w };
        debug_assert!(dv.add(&self.dual[wi]) >= w2, "negative slack");
        let kslack = dv.add_sub(&self.dual[wi], &w2);
        if kslack.is_zero() {
            if self.label[bwi] == 0 {
                if self.mate[self.base[bwi] as usize] == NONE {
                    // An exposed vertex with dual 0: augment into it.
                    self.augment_side(v, w);
                    if bwi >= self.n {
                        self.augment_blossom(bw, w);
                    }
                    self.mate[wi] = v;
                    return true;
                }
                self.assign_label(w, 2, e.flip());
            } else if self.label[bwi] == 1 {
                let base = self.scan_blossom(v, w);
                if base != NONE {
                    self.add_blossom(base, v, w);
                } else {
                    self.augment_side(v, w);
                    self.augment_side(w, v);
                    return true;
                }
            } else {
                // Inside a T-blossom, first reached through this edge.
                self.label[wi] = 2;
                self.labelend[wi] = e.flip();
            }
        } else {
            if self.label[bwi] == 1 {
                if self.bestedge[bvi].is_none() || kslack < self.best_slack_of(bvi) {
                    self.set_best(bvi, e, kslack);
                }
            } else if self.label[wi] == 0
                && (self.bestedge[wi].is_none() || kslack < self.best_slack_of(wi))
            {
                self.set_best(wi, e, kslack);
            }
        }
        false
    }

    /// Change the duals by the largest safe amount; true if the stage is over.
    ///
    /// The four candidates are those of the classic algorithm, each the first least
    /// value in index order, and a later kind wins only if strictly smaller: an
    /// S-vertex's dual (1), the best edge of a free vertex (2), half the best edge
    /// between S-blossoms (3), a T-blossom's dual (4). The passes of 1 and 2 and those
    /// of 3 and 4 share a loop; a step of 0 (a T-blossom of dual 0 to expand, the usual
    /// case) changes no dual and keeps the cached best slacks.
    fn dual_step(&mut self) -> bool {
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.clear();
        // The candidates are looked for in the stage's lists (S-vertices, vertices given
        // a best edge, labelled blossoms) rather than over all vertices and blossom
        // slots; the lists are not in index order, so equal values go to the lower
        // index explicitly, as the first one in index order did.
        let lower = |d: &Wide<N>, i: u32, best: &Option<(Wide<N>, u32)>| {
            best.as_ref()
                .is_none_or(|(bd, bi)| *d < *bd || (*d == *bd && i < *bi))
        };
        let mut d1: Option<(Wide<N>, u32)> = None;
        let mut d2: Option<(Wide<N>, u32)> = None;
        let mut d3: Option<(Wide<N>, u32)> = None;
        let mut d4: Option<(Wide<N>, u32)> = None;
        for k in 0..self.s_list.len() {
            let v = self.s_list[k];
            let vi = v as usize;
            if self.label[self.inblossom[vi] as usize] == 1 && lower(&self.dual[vi], v, &d1) {
                d1 = Some((self.dual[vi], v));
            }
            // A trivial top-level S-blossom (kind 3).
            if self.parent[vi] == NONE && self.label[vi] == 1 && !self.bestedge[vi].is_none() {
                let s = self.best_slack_of(vi);
                fresh.push((v, true));
                debug_assert!(s.0[0] & 1 == 0, "odd slack between S-blossoms");
                let d = s.half();
                if lower(&d, v, &d3) {
                    d3 = Some((d, v));
                }
            }
        }
        for k in 0..self.be_list.len() {
            let v = self.be_list[k];
            let vi = v as usize;
            if self.label[self.inblossom[vi] as usize] == 0 && !self.bestedge[vi].is_none() {
                let d = self.best_slack_of(vi);
                fresh.push((v, false));
                if lower(&d, v, &d2) {
                    d2 = Some((d, v));
                }
            }
        }
        for k in 0..self.b_list.len() {
            let b = self.b_list[k];
            let bi = b as usize;
            if self.base[bi] == NONE || self.parent[bi] != NONE {
                continue;
            }
            match self.label[bi] {
                1 if !self.bestedge[bi].is_none() => {
                    let s = self.best_slack_of(bi);
                    fresh.push((b, true));
                    // Both ends are labelled, so their duals have equal parity.
                    debug_assert!(s.0[0] & 1 == 0, "odd slack between S-blossoms");
                    let d = s.half();
                    if lower(&d, b, &d3) {
                        d3 = Some((d, b));
                    }
                }
                2 if lower(&self.dual[bi], b, &d4) => {
                    d4 = Some((self.dual[bi], b));
                }
                _ => {}
            }
        }
        let d2 = d2.map(|(d, v)| (d, self.bestedge[v as usize]));
        let d3 = d3.map(|(d, b)| (d, self.bestedge[b as usize]));
        let mut delta_type = 0u8;
        let mut delta = Wide::<N>::ZERO;
        let mut delta_vertex = NONE;
        let mut delta_edge = Ep::NONE;
        let mut delta_blossom = NONE;
        if let Some((d, v)) = d1 {
            delta = d;
            delta_type = 1;
            delta_vertex = v;
        }
        if let Some((d, e)) = d2
            && (delta_type == 0 || d < delta)
        {
            delta = d;
            delta_type = 2;
            delta_edge = e;
        }
        if let Some((d, e)) = d3
            && (delta_type == 0 || d < delta)
        {
            delta = d;
            delta_type = 3;
            delta_edge = e;
        }
        if let Some((d, b)) = d4
            && (delta_type == 0 || d < delta)
        {
            delta = d;
            delta_type = 4;
            delta_blossom = b;
        }
        if !delta.is_zero() {
            for &v in &self.alive_list {
                let vi = v as usize;
                match self.label[self.inblossom[vi] as usize] {
                    1 => self.dual[vi].sub_assign(&delta),
                    2 => self.dual[vi].add_assign(&delta),
                    _ => {}
                }
            }
            // Only a non-trivial blossom labelled in this stage can be a labelled
            // top-level one (labels are cleared at every stage, and every labelling of a
            // blossom lists it in `b_list`), so the list replaces the scan of all slots.
            for k in 0..self.b_list.len() {
                let b = self.b_list[k] as usize;
                if self.base[b] != NONE && self.parent[b] == NONE {
                    match self.label[b] {
                        1 => self.dual[b].add_assign(&delta),
                        2 => self.dual[b].sub_assign(&delta),
                        _ => {}
                    }
                }
            }
            // Carry the best slacks computed above over to the new duals.
            self.generation += 1;
            let twice = delta.double();
            for &(x, s_s) in &fresh {
                let xi = x as usize;
                self.best[xi]
                    .slack
                    .sub_assign(if s_s { &twice } else { &delta });
                self.best[xi].generation = self.generation;
            }
        }
        self.fresh = fresh;
        match delta_type {
            1 => {
                // An S-vertex's dual reached 0: leave it exposed.
                self.augment_side(delta_vertex, NONE);
                true
            }
            2 => {
                let (mut i, j) = (delta_edge.from, delta_edge.to);
                if self.label[self.inblossom[i as usize] as usize] == 0 {
                    i = j;
                }
                self.queue.push(i);
                false
            }
            3 => {
                self.queue.push(delta_edge.from);
                false
            }
            4 => {
                self.expand_blossom(delta_blossom, false);
                false
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Matcher, Wide};

    /// Exhaustive maximum matching weight on a small graph.
    fn brute(n: usize, w: &[Vec<u64>]) -> u64 {
        fn go(v: usize, used: &mut Vec<bool>, n: usize, w: &[Vec<u64>]) -> u64 {
            if v == n {
                return 0;
            }
            if used[v] {
                return go(v + 1, used, n, w);
            }
            used[v] = true;
            let mut best = go(v + 1, used, n, w);
            for u in v + 1..n {
                if !used[u] && w[v][u] > 0 {
                    used[u] = true;
                    best = best.max(w[v][u] + go(v + 1, used, n, w));
                    used[u] = false;
                }
            }
            used[v] = false;
            best
        }
        go(0, &mut vec![false; n], n, w)
    }

    fn weight_of(m: &Matcher<1>, w: &[Vec<u64>]) -> u64 {
        let mate = m.matching();
        let mut total = 0;
        for (v, &u) in mate.iter().enumerate() {
            if u > v {
                assert_eq!(mate[u], v, "matching is symmetric");
                assert!(w[v][u] > 0, "only real edges are matched");
                total += w[v][u];
            }
        }
        total
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn incremental_solves_match_brute_force() {
        let mut rng = Lcg(7);
        for round in 0..300 {
            let n = 2 + (rng.next() % 9) as usize;
            let mut w = vec![vec![0u64; n]; n];
            let mut m = Matcher::<1>::new(n);
            for i in 0..n {
                for j in 0..i {
                    let x = if rng.next().is_multiple_of(4) {
                        0
                    } else {
                        rng.next() % 20
                    };
                    w[i][j] = x;
                    w[j][i] = x;
                    m.set_weight(i, j, Wide::from_u64(x));
                }
            }
            m.solve();
            m.check().unwrap_or_else(|e| panic!("initial {round}: {e}"));
            assert_eq!(
                weight_of(&m, &w),
                brute(n, &w),
                "initial solve, case {round}"
            );
            for step in 0..6 {
                let v = (rng.next() as usize) % n;
                for u in 0..n {
                    if u != v && rng.next().is_multiple_of(2) {
                        let x = if rng.next().is_multiple_of(3) {
                            0
                        } else {
                            rng.next() % 40
                        };
                        w[v][u] = x;
                        w[u][v] = x;
                        m.set_weight(v, u, Wide::from_u64(x));
                    }
                }
                m.solve();
                m.check()
                    .unwrap_or_else(|e| panic!("case {round} step {step}: {e}"));
                assert_eq!(weight_of(&m, &w), brute(n, &w), "case {round} step {step}");
            }
        }
    }

    #[test]
    fn finalised_pairs_leave_the_graph() {
        let mut rng = Lcg(11);
        for round in 0..200 {
            let n = 4 + (rng.next() % 7) as usize;
            let mut w = vec![vec![0u64; n]; n];
            let mut m = Matcher::<1>::new(n);
            for i in 0..n {
                for j in 0..i {
                    let x = rng.next() % 30;
                    w[i][j] = x;
                    w[j][i] = x;
                    m.set_weight(i, j, Wide::from_u64(x));
                }
            }
            m.solve();
            let mate = m.matching();
            if let Some(v) = (0..n).find(|&v| mate[v] != v) {
                let u = mate[v];
                m.finalize_pair(v, u);
                for x in 0..n {
                    w[v][x] = 0;
                    w[x][v] = 0;
                    w[u][x] = 0;
                    w[x][u] = 0;
                }
                m.solve();
                m.check().unwrap_or_else(|e| panic!("case {round}: {e}"));
                let mate2 = m.matching();
                assert_eq!(mate2[v], u);
                let rest: u64 = (0..n)
                    .filter(|&a| a != v && a != u && mate2[a] > a && mate2[a] != v && mate2[a] != u)
                    .map(|a| w[a][mate2[a]])
                    .sum();
                assert_eq!(rest, brute(n, &w), "case {round}");
            }
        }
    }

    /// Larger graphs with few distinct weights (many equal optima, nested blossoms, steps
    /// of 0): after every incremental change the optimality conditions hold and the
    /// weight equals that of a fresh solve of the same graph.
    #[test]
    fn incremental_solves_with_many_ties_stay_optimal() {
        let mut rng = Lcg(23);
        for round in 0..12 {
            let n = 30 + (rng.next() % 31) as usize;
            let mut w = vec![vec![0u64; n]; n];
            let mut m = Matcher::<2>::new(n);
            for i in 0..n {
                for j in 0..i {
                    let x = [0, 4, 4, 6, 6, 6, 8][(rng.next() % 7) as usize];
                    w[i][j] = x;
                    w[j][i] = x;
                    m.set_weight(i, j, Wide::from_u64(x));
                }
            }
            m.solve();
            m.check().unwrap_or_else(|e| panic!("initial {round}: {e}"));
            for step in 0..15 {
                // Raise one vertex's edges by small distinct amounts, as the engine does.
                let v = (rng.next() as usize) % n;
                let mut add = 0;
                for u in 0..n {
                    if u != v && w[v][u] > 0 {
                        w[v][u] += add;
                        w[u][v] = w[v][u];
                        m.set_weight(v, u, Wide::from_u64(w[v][u]));
                        add = (add + 1) % 3;
                    }
                }
                m.solve();
                m.check()
                    .unwrap_or_else(|e| panic!("case {round} step {step}: {e}"));
                let mut fresh = Matcher::<2>::new(n);
                for i in 0..n {
                    for j in 0..i {
                        fresh.set_weight(i, j, Wide::from_u64(w[i][j]));
                    }
                }
                fresh.solve();
                fresh
                    .check()
                    .unwrap_or_else(|e| panic!("fresh {round}: {e}"));
                let total = |mm: &Matcher<2>| -> u64 {
                    let mate = mm.matching();
                    (0..n).filter(|&a| mate[a] > a).map(|a| w[a][mate[a]]).sum()
                };
                assert_eq!(total(&m), total(&fresh), "case {round} step {step}");
            }
        }
    }
}
