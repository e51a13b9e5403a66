import { parseArgs } from 'node:util';
import { AppError } from '../errors.ts';
import { authCommands } from './commands/auth.ts';
import { type CliContext, type Command, createCliDeps, UsageError } from './commands/command.ts';
import { databaseCommands } from './commands/database.ts';
import { featureCommands } from './commands/features.ts';
import { gatewayCommands } from './commands/gateway.ts';
import { incidentCommands } from './commands/incident.ts';
import { outboundCommands } from './commands/outbound.ts';
import { quarantineCommands } from './commands/quarantine.ts';
import { tenantCommands } from './commands/tenant.ts';
import { trialCommands } from './commands/trial.ts';
import { userCommands } from './commands/user.ts';

export type { CliContext } from './commands/command.ts';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Every command, one file per group under commands/; `--help` lists them in this order. */
export const COMMANDS: Record<string, Command> = {
  ...tenantCommands,
  ...outboundCommands,
  ...featureCommands,
  ...userCommands,
  ...authCommands,
  ...trialCommands,
  ...incidentCommands,
  ...gatewayCommands,
  ...quarantineCommands,
  ...databaseCommands,
};

export function generalHelp(): string {
  const listed = Object.entries(COMMANDS).filter(([, c]) => !c.hidden);
  const width = Math.max(...listed.map(([name]) => name.length));
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...listed.map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run npm run cli -- <command> --help for the options of one command.',
  ].join('\n');
}

function commandHelp(command: Command): string {
  return `${command.summary}.\n\nUsage: npm run cli -- ${command.usage}`;
}

export type Parsed =
  | { kind: 'help'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'run'; name: string; command: Command; values: Record<string, unknown>; positionals: string[] };

/** Parse a command line without touching the database. */
export function parseCommandLine(argv: string[]): Parsed {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help')
    return { kind: 'help', text: generalHelp() };
  const command = COMMANDS[name];
  if (!command) return { kind: 'error', text: `Unknown command "${name}".\n\n${generalHelp()}` };
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      strict: true,
      allowPositionals: command.positionals === true,
    });
    if (values.help === true) return { kind: 'help', text: commandHelp(command) };
    return { kind: 'run', name, command, values, positionals };
  } catch (error) {
    return {
      kind: 'error',
      text: `Error: ${(error as Error).message}\nUsage: npm run cli -- ${command.usage}`,
    };
  }
}

/** Run a parsed command line against a database. Shared by the CLI and the server's loopback bridge. */
export async function runCommand(argv: string[], ctx: CliContext): Promise<CliResult> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'help') return { exitCode: 0, stdout: `${parsed.text}\n`, stderr: '' };
  if (parsed.kind === 'error') return { exitCode: 2, stdout: '', stderr: `${parsed.text}\n` };
  try {
    const out = await parsed.command.run(
      { values: parsed.values, positionals: parsed.positionals },
      ctx,
      createCliDeps(ctx),
    );
    return { exitCode: 0, stdout: `${out}\n`, stderr: '' };
  } catch (error) {
    if (error instanceof UsageError) {
      return {
        exitCode: 2,
        stdout: '',
        stderr: `Error: ${error.message}\nUsage: npm run cli -- ${parsed.command.usage}\n`,
      };
    }
    if (error instanceof AppError) return { exitCode: 1, stdout: '', stderr: `Error: ${error.message}\n` };
    throw error;
  }
}
