// Preloaded (`node --import`) into every third-party server this app starts. The servers choose
// their own listen address (Portkey and mock-llm bind every interface), so this pins each TCP
// listen to 127.0.0.1, reports the bound port to the parent over IPC (the servers print it in
// their own formats, or print the requested port 0), and exits when the parent goes away, so a
// killed test run leaves no server behind.
import net from 'node:net';

const LOOPBACK = '127.0.0.1';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first] = args;
  if (typeof first === 'object' && first !== null && ('port' in first || 'host' in first)) {
    args[0] = { ...first, host: LOOPBACK };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] === 'function') args.splice(1, 0, LOOPBACK);
    else args[1] = LOOPBACK;
  }
  this.once('listening', () => {
    const address = this.address();
    if (address !== null && typeof address === 'object') process.send?.({ kind: 'listening', host: address.address, port: address.port });
  });
  return listen.apply(this, args);
};

process.on('disconnect', () => process.exit(0));
