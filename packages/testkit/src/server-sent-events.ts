/** What a test reads of a Server-Sent Events text: each event's name and its data, comments (`: keep-alive`) left out. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

export function serverSentEvents(body: string): ServerSentEvent[] {
  return body
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => ({
      event: lines.find((line) => line.startsWith('event: '))?.slice('event: '.length),
      data: lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length)).join('\n'),
    }));
}
