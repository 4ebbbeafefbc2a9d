// Baseline: node:http answering a constant JSON body of the same size as a check response — the practical ceiling.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const body = Buffer.from(readFileSync(process.env.BENCH_BODY_FILE!, 'utf8'));
http
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    });
  })
  .listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
