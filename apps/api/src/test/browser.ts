/** The headers a person's browser sends when a link in a message is opened (not a link scanner's). */
export const BROWSER_VISIT = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml',
  'accept-language': 'en-GB,en;q=0.9',
};
