export interface Postgres {
	host: string;
	port: number;
	user: string;
	password: string;
	database: string;
	stop(): Promise<void>;
}
export interface Redis {
	host: string;
	port: number;
	stop(): Promise<void>;
}
export function missingQueuePrerequisites(): string[];
export function queueModeAvailable(): boolean;
export function startPostgres(): Promise<Postgres>;
export function startRedis(): Promise<Redis>;
export function queueEnv(postgres: Postgres, redis: Redis): Record<string, string>;
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } | undefined;
export function note(line: string): void;
