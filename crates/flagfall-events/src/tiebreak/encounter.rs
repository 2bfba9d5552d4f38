//! Direct Encounter (FIDE C.07 art. 6) and US Chess "result between tied players" (34E5):
//! tiebreaks computed on the group of tied players rather than per player.

use super::analysis::Analysis;
use super::value::Value;

/// Direct-encounter score of every member of `group` against the others, and whether every
/// pair met.
///
/// - Encounters: rounds that count as games (played; in a round robin also forfeits, C.07
///   15.2). In a Swiss forfeits are left out (6.1.1).
/// - If two players met more than once, the addend is the mean of their encounter scores
///   (6.1.2); an encounter score is the points of the round (a whole match when a round has
///   several games).
pub(crate) fn scores(a: &Analysis<'_>, group: &[usize]) -> (Vec<Value>, bool) {
    let m = matrix(a, group);
    let all: Vec<usize> = (0..group.len()).collect();
    scores_in(&m, &all)
}

/// `m[i][j]`: (sum of half-points, number of encounters) of `group[i]` against `group[j]`.
type Matrix = Vec<Vec<(i64, i64)>>;

fn matrix(a: &Analysis<'_>, group: &[usize]) -> Matrix {
    let mut pos = vec![usize::MAX; a.players()];
    for (i, &p) in group.iter().enumerate() {
        pos[p] = i;
    }
    let mut m = vec![vec![(0i64, 0i64); group.len()]; group.len()];
    for (i, &p) in group.iter().enumerate() {
        for info in &a.rounds[p] {
            let Some(o) = info.opponent else { continue };
            let j = pos[o];
            if j != usize::MAX && a.counts_as_game(info) {
                m[i][j].0 += i64::from(info.points);
                m[i][j].1 += 1;
            }
        }
    }
    m
}

/// Direct-encounter scores of the members `idx` (indices into the matrix) among themselves.
fn scores_in(m: &Matrix, idx: &[usize]) -> (Vec<Value>, bool) {
    let mut all_met = true;
    let out = idx
        .iter()
        .map(|&i| {
            let mut total = Value::ZERO;
            for &j in idx {
                if i == j {
                    continue;
                }
                let (sum, count) = m[i][j];
                if count == 0 {
                    all_met = false;
                } else {
                    total = total + Value::new(sum, 2 * count);
                }
            }
            total
        })
        .collect();
    (out, all_met)
}

/// Splits a tied group into ordered classes (best first) by direct encounter.
///
/// - Everyone met everyone: order by the direct-encounter score, and re-apply the procedure
///   to every smaller group still tied (6.2).
/// - Otherwise, with `require_all_met` (US Chess 34E5: only usable when all tied players
///   played each other) the group stays tied.
/// - Otherwise (FIDE 6.3, Swiss): a player is placed first only if his score is higher than
///   what anyone else could reach by winning all their missing games within the group; he is
///   removed and the procedure is re-applied to the rest (interpretation: the scores are
///   recomputed among the remaining players each time). When nobody is certain to be first,
///   the remaining players stay tied.
pub(crate) fn rank_group(
    a: &Analysis<'_>,
    group: &[usize],
    require_all_met: bool,
) -> Vec<Vec<usize>> {
    let m = matrix(a, group);
    let all: Vec<usize> = (0..group.len()).collect();
    rank_indices(a, &m, &all, require_all_met)
        .into_iter()
        .map(|class| class.into_iter().map(|i| group[i]).collect())
        .collect()
}

/// [`rank_group`] on indices into the encounter matrix.
fn rank_indices(
    a: &Analysis<'_>,
    m: &Matrix,
    group: &[usize],
    require_all_met: bool,
) -> Vec<Vec<usize>> {
    let mut classes: Vec<Vec<usize>> = Vec::new();
    let mut remaining: Vec<usize> = group.to_vec();
    loop {
        if remaining.len() <= 1 {
            if !remaining.is_empty() {
                classes.push(remaining);
            }
            break;
        }
        let (de, all_met) = scores_in(m, &remaining);
        if all_met {
            let mut order: Vec<usize> = (0..remaining.len()).collect();
            order.sort_by(|&x, &y| de[y].cmp(&de[x]).then(remaining[x].cmp(&remaining[y])));
            let mut subgroups: Vec<Vec<usize>> = Vec::new();
            let mut last: Option<Value> = None;
            for i in order {
                if last == Some(de[i]) {
                    if let Some(sg) = subgroups.last_mut() {
                        sg.push(remaining[i]);
                    }
                } else {
                    subgroups.push(vec![remaining[i]]);
                    last = Some(de[i]);
                }
            }
            if subgroups.len() == 1 {
                classes.push(remaining);
            } else {
                for sg in subgroups {
                    if sg.len() == 1 {
                        classes.push(sg);
                    } else {
                        classes.extend(rank_indices(a, m, &sg, require_all_met));
                    }
                }
            }
            break;
        }
        if require_all_met {
            classes.push(remaining);
            break;
        }
        // 6.3: the best reachable score of each player: his score plus a win in every game of
        // every missing encounter.
        let win_per_encounter = Value::int(i64::from(a.g));
        let best: Vec<Value> = remaining
            .iter()
            .zip(&de)
            .map(|(&i, &d)| {
                let missing = remaining
                    .iter()
                    .filter(|&&j| j != i && m[i][j].1 == 0)
                    .count() as i64;
                d + Value::int(missing) * win_per_encounter
            })
            .collect();
        let leader =
            (0..remaining.len()).find(|&i| (0..remaining.len()).all(|j| j == i || de[i] > best[j]));
        match leader {
            Some(i) => {
                classes.push(vec![remaining.remove(i)]);
            }
            None => {
                classes.push(remaining);
                break;
            }
        }
    }
    classes
}
