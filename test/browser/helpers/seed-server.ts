import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A check server that keeps to the product's first contract and nothing more (SPEC.md Part A's envelope of
 * `POST /api/v1/check-postcode`): no `location.lgas` or `lga_source`, no `lgas` on a declaration, and only
 * `last_updated` in the metadata. The extension must work with it: fields added later are optional to the client.
 */

const DISCLAIMERS = [
  'Information only: not clinical or billing advice.',
  'Clinicians must verify current Medicare requirements.',
  'Disaster declarations may change without notice.',
];

/** Seed-contract answers: 4000 eligible (Brisbane, one recent declaration), 2480 not (Lismore, one ended). */
export function seedAnswer(postcode: string): unknown {
  if (postcode === '4000') {
    return {
      success: true,
      data: {
        summary: {
          is_eligible: true,
          status_color: 'green',
          headline_text: 'Eligible: 1 active disaster declaration for Brisbane LGA.',
          medicare_status_text: 'The telehealth disaster exemption applies.',
          clinical_decision_support: ['Confirm the patient lives at an address in Brisbane LGA.'],
        },
        location: {
          postcode: '4000',
          suburb: 'Brisbane City, Spring Hill',
          state: 'QLD',
          lga_name: 'Brisbane',
          lga_code: '31000',
        },
        clinical_documentation: { proforma_text: 'Telehealth disaster exemption check\nPostcode: 4000' },
        disasters: [
          {
            agrn: '1195',
            title: 'Tropical Cyclone Test (synthetic)',
            hazard_type: 'Cyclone',
            start_date: '2026-01-01',
            end_date: null,
            url: 'https://www.disasterassist.gov.au/find-a-disaster/australian-disasters/1195',
            status_color: 'green',
            is_active: true,
            display_date: '01/01/2026',
          },
        ],
        disclaimers: DISCLAIMERS,
      },
      metadata: { last_updated: '2026-03-09T20:00:00.000Z' },
    };
  }
  if (postcode === '2480') {
    return {
      success: true,
      data: {
        summary: {
          is_eligible: false,
          status_color: 'red',
          headline_text: 'Not eligible: no active disaster declaration for Lismore LGA.',
          medicare_status_text: 'The telehealth disaster exemption does not apply.',
          clinical_decision_support: ['Use the usual established-relationship rules.'],
        },
        location: {
          postcode: '2480',
          suburb: 'Lismore, Goonellabah',
          state: 'NSW',
          lga_name: 'Lismore',
          lga_code: '14850',
        },
        clinical_documentation: { proforma_text: 'Telehealth disaster exemption check\nPostcode: 2480' },
        disasters: [
          {
            agrn: '900',
            title: 'Ended Storm (synthetic)',
            hazard_type: null,
            start_date: '2024-05-01',
            end_date: '2024-06-30',
            url: null,
            status_color: 'red',
            is_active: false,
            display_date: '01/05/2024',
          },
        ],
        disclaimers: DISCLAIMERS,
      },
      metadata: { last_updated: '2026-03-09T20:00:00.000Z' },
    };
  }
  return { success: false, error: { code: 'postcode_not_found', message: 'Postcode not found' } };
}

export interface SeedServer {
  /** http://127.0.0.1:<port>, the Server URL to give the extension. */
  url: string;
  /** The postcodes asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

/** Starts the seed-contract check server on 127.0.0.1 (an ephemeral port); any x-api-key is accepted. */
export async function startSeedServer(): Promise<SeedServer> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const send = (status: number, answer: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (req.method !== 'POST' || req.url !== '/api/v1/check-postcode') {
        send(404, { success: false, error: { code: 'not_found', message: 'Not found' } });
        return;
      }
      if (!req.headers['x-api-key']) {
        send(401, { success: false, error: { code: 'missing_api_key', message: 'Missing x-api-key header' } });
        return;
      }
      let postcode = '';
      try {
        postcode = String((JSON.parse(body) as { postcode?: unknown }).postcode ?? '');
      } catch {
        // A body that is not JSON is a postcode that is not there.
      }
      asked.push(postcode);
      const answer = seedAnswer(postcode);
      send((answer as { success: boolean }).success ? 200 : 404, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
