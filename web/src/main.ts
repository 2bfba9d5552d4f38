import './style.css';
import { mountChallenge } from './challenge';
import { mountDirector } from './director';
import { h } from './dom';
import { mountEventConsole } from './event/console';
import { mountEventJoin } from './event/join';
import { mountEventPlayer } from './event/player';
import { mountEventSetup } from './event/setup';
import { mountGame } from './game/main';
import { mountLobby } from './lobby';
import { mountPrint } from './event/print';
import { mountProjector } from './event/projector';
import { route } from './router';

const root = document.getElementById('app');
if (root) {
  const r = route(location.pathname, location.search);
  switch (r.page) {
    case 'lobby':
      document.title = 'flagfall · lobby';
      mountLobby(root);
      break;
    case 'play':
      document.title = `flagfall · game ${r.id}`;
      mountGame(root, { id: r.id, token: r.token });
      break;
    case 'watch':
      document.title = `flagfall · watching ${r.id}`;
      mountGame(root, { id: r.id, token: null });
      break;
    case 'direct':
      document.title = 'flagfall · director';
      mountDirector(root, r.id, r.token);
      break;
    case 'challenge':
      document.title = 'flagfall · open challenge';
      mountChallenge(root, r.id, r.secret);
      break;
    case 'projector':
      document.title = 'flagfall · projector';
      mountProjector(root, r.id);
      break;
    case 'print':
      document.title = 'flagfall · print';
      mountPrint(root, r.id, r.kind, location.search);
      break;
    case 'event-new':
      document.title = 'flagfall · new evening';
      mountEventSetup(root);
      break;
    case 'event-direct':
      document.title = 'flagfall · evening director';
      mountEventConsole(root, r.id, r.token);
      break;
    case 'event-join':
      document.title = 'flagfall · evening';
      mountEventJoin(root, r.id);
      break;
    case 'event-player':
      document.title = 'flagfall · evening';
      mountEventPlayer(root, r.id, r.token);
      break;
    case 'notfound':
      root.replaceChildren(h('main', {}, h('h1', {}, 'Not found'), h('p', {}, `No page at ${r.path}. `, h('a', { href: '/' }, 'Go to the lobby'))));
      break;
  }
}
