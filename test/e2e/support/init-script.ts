import { CHANNELS, EVENTS, ipcEvent } from '../../../src/shared/ipc/names'
import { KEY_HEADER } from './bridge'

/**
 * Source for page.addInitScript: installs a window.api with the preload's shape and rules
 * (only contract channels and events; invoke resolves to the router's Result; on returns
 * an unsubscribe) that talks to the bridge instead of ipcRenderer. Plain JavaScript text,
 * so nothing the test compiler adds can leak into the page.
 */
export function bridgeInitScript(bridge: { url: string; key: string }): string {
  const cfg = {
    http: bridge.url,
    ws: `${bridge.url.replace(/^http/, 'ws')}/events`,
    key: bridge.key,
    keyHeader: KEY_HEADER,
    channels: CHANNELS,
    eventsByChannel: Object.fromEntries(EVENTS.map((e) => [ipcEvent(e), e]))
  }
  return `(() => {
  const cfg = ${JSON.stringify(cfg)};
  const channels = new Set(cfg.channels);
  const eventNames = new Set(Object.values(cfg.eventsByChannel));
  const listeners = new Map();

  function dispatch(message) {
    let msg;
    try { msg = JSON.parse(message.data); } catch { return; }
    const name = cfg.eventsByChannel[msg && msg.channel];
    if (!name) return;
    for (const listener of [...(listeners.get(name) || [])]) {
      try { listener(msg.payload); } catch (e) { setTimeout(() => { throw e; }); }
    }
  }

  function connect() {
    try {
      const socket = new WebSocket(cfg.ws + '?key=' + encodeURIComponent(cfg.key));
      socket.addEventListener('message', dispatch);
    } catch { /* a page the bridge refuses gets no events */ }
  }

  const api = {
    invoke(channel, request) {
      if (!channels.has(channel)) return Promise.reject(new Error('Unknown channel ' + String(channel)));
      return fetch(cfg.http + '/invoke/' + encodeURIComponent(channel), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [cfg.keyHeader]: cfg.key },
        body: JSON.stringify(request === undefined || request === null ? {} : request),
        credentials: 'omit',
        cache: 'no-store'
      }).then((res) => {
        if (!res.ok) throw new Error('The bridge refused ' + channel + ' (HTTP ' + res.status + ')');
        return res.json();
      });
    },
    on(event, listener) {
      if (!eventNames.has(event) || typeof listener !== 'function') throw new Error('Unknown event ' + String(event));
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const wrapped = (payload) => listener(payload);
      set.add(wrapped);
      return () => { set.delete(wrapped); };
    }
  };

  Object.defineProperty(window, 'api', { value: Object.freeze(api), enumerable: true, configurable: false, writable: false });
  connect();
})();`
}
