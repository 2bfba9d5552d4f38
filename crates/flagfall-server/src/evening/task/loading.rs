//! An evening loaded from the store: its base event, its log replayed, its tokens.

use super::*;

/// [`handle`]; a task started here remembers `creator` as its director's address.
pub(super) async fn load(
    shared: &Arc<Shared>,
    id: &str,
    creator: Option<IpAddr>,
) -> Result<Option<EveningHandle>, ServerError> {
    if let Some(h) = shared.evenings.lock().get(id).filter(|h| !h.tx.is_closed()) {
        return Ok(Some(h.clone()));
    }
    if shared.stopping() {
        return Err(ServerError::Stopped("the server"));
    }
    let Some(row) = shared.store.tournament(id).await? else {
        return Ok(None);
    };
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        ServerError::Corrupt(format!("evening {id}: {what}: {e}"))
    };
    let settings: Settings =
        serde_json::from_str(&row.settings).map_err(|e| corrupt("settings", &e))?;
    let log = shared.store.tournament_log(id).await?;
    let seq = log.len() as i64;
    let log_bytes = log.iter().map(|r| r.json.len()).sum();
    // The event from its base and every change: CPU-bound for a big evening.
    let owned = id.to_string();
    let (event, reports) = shared
        .cpu
        .run(None, move || {
            let id = owned.as_str();
            let corrupt = |what: &str, e: &dyn std::fmt::Display| {
                ServerError::Corrupt(format!("evening {id}: {what}: {e}"))
            };
            let mut event: Event =
                serde_json::from_str(&row.base).map_err(|e| corrupt("base", &e))?;
            let mut reports: BTreeMap<(u32, u32), BoardReports> = BTreeMap::new();
            for (i, r) in log.iter().enumerate() {
                replay_row(id, &mut event, &mut reports, i as i64, r)?;
            }
            Ok::<_, ServerError>((event, reports))
        })
        .await??;
    let tokens = load_tokens(shared, id).await?;
    let snap = Snap {
        id: id.to_string(),
        event,
        settings,
        reports,
        tokens,
        seq,
        log_bytes,
        disputes: BTreeMap::new(),
    };
    let snap = Arc::new(snap);
    let (snap_tx, snap_rx) = watch::channel(snap.clone());
    let (live, _) = broadcast::channel(LIVE_BUFFER);
    let (tx, rx) = mpsc::channel(QUEUE);
    let h = EveningHandle {
        id: id.into(),
        shared: Arc::downgrade(shared),
        tx,
        snap: snap_rx,
        live: live.clone(),
    };
    if let Some(other) = put(shared, id, &h)? {
        return Ok(Some(other));
    }
    shared.metrics.loaded_evenings.inc();
    let task = Task {
        shared: shared.clone(),
        me: h.tx.downgrade(),
        state: snap,
        snap_tx,
        live,
        waiting_at: HashMap::new(),
        creator,
        paid: 0,
    };
    shared.spawn(task.run(rx));
    Ok(Some(h))
}

/// Put in the handle of evening `id` just loaded, under the lock of the evenings: `Some`
/// with the handle of a task another request started meanwhile (the new one is dropped),
/// refused once the server is stopping (checked under the lock, so that a stop's
/// `Evenings::drain` misses no evening put in).
fn put(shared: &Shared, id: &str, h: &EveningHandle) -> Result<Option<EveningHandle>, ServerError> {
    let mut map = shared.evenings.lock();
    if let Some(other) = map.get(id).filter(|o| !o.tx.is_closed()) {
        return Ok(Some(other.clone()));
    }
    if shared.stopping() {
        return Err(ServerError::Stopped("the server"));
    }
    map.insert(id.to_string(), h.clone());
    Ok(None)
}

/// The report details with the start date and site set with them (`None`: unchanged),
/// checked together (the end date not before the start): all or nothing.
pub(super) fn set_details(
    event: &mut Event,
    report: ReportInfo,
    date: Option<&str>,
    site: Option<&str>,
) -> Result<(), EventError> {
    if let Some(d) = date {
        event.set_date(Some(d))?;
    }
    if let Some(s) = site {
        event.set_site(Some(s))?;
    }
    event.set_report(report)
}

/// Apply stored log row `r`, the one after row `seq`, to `event` and `reports` (as
/// loading does, and catching up with another node's changes): what followed.
pub(super) fn replay_row(
    id: &str,
    event: &mut Event,
    reports: &mut BTreeMap<(u32, u32), BoardReports>,
    seq: i64,
    r: &TournamentLogRow,
) -> Result<Vec<Effect>, ServerError> {
    let corrupt = |what: &str, e: &dyn std::fmt::Display| {
        ServerError::Corrupt(format!("evening {id}: {what}: {e}"))
    };
    if r.seq != seq + 1 {
        return Err(corrupt(
            "log",
            &format!("row {} where {} was due", r.seq, seq + 1),
        ));
    }
    match serde_json::from_str::<LogRow>(&r.json).map_err(|e| corrupt("log", &e))? {
        LogRow::Change(entry) => event
            .apply_stored(entry.change, &Origin::new(entry.by, entry.at))
            .map_err(|e| corrupt(&format!("log row {}", r.seq), &e)),
        LogRow::Report(rep) => {
            note_report(event, reports, &rep);
            Ok(Vec::new())
        }
        LogRow::Details {
            report, date, site, ..
        } => {
            if let Some(d) = date {
                event.date = Some(d).filter(|d| !d.is_empty());
            }
            if let Some(s) = site {
                event.site = Some(s).filter(|s| !s.is_empty());
            }
            event.report = report;
            Ok(vec![Effect::SettingChanged])
        }
    }
}

/// An evening's tokens from the store: hash to who.
pub(super) async fn load_tokens(
    shared: &Shared,
    id: &str,
) -> Result<HashMap<String, Who>, ServerError> {
    let mut tokens = HashMap::new();
    for t in shared.store.tournament_tokens(id).await? {
        let who = match (t.role.as_str(), t.player) {
            ("director", _) => Who::Director,
            ("deputy", _) => Who::Deputy,
            ("player", Some(name)) => Who::Player(name),
            (role, _) => {
                return Err(ServerError::Corrupt(format!(
                    "evening {id}: tokens: role {role:?}"
                )));
            }
        };
        tokens.insert(t.token_hash, who);
    }
    Ok(tokens)
}

/// Record a report in `reports` (the board's White or Black by the reporter's name).
pub(super) fn note_report(
    event: &Event,
    reports: &mut BTreeMap<(u32, u32), BoardReports>,
    r: &Report,
) {
    let Some(number) = event
        .players
        .iter()
        .find(|p| p.name == r.player)
        .map(|p| p.id)
    else {
        return;
    };
    let Some(board) = event
        .round_list
        .get((r.round as usize).wrapping_sub(1))
        .and_then(|round| round.boards.iter().find(|b| b.number == r.board))
    else {
        return;
    };
    let entry = reports.entry((r.round, r.board)).or_default();
    if board.white == number {
        entry.white = Some(r.results.clone());
    } else if board.black == number {
        entry.black = Some(r.results.clone());
    }
}
