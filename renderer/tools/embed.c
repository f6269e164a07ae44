/* embed: writes a binary file as a C array, so the SPIR-V the build makes
 * with glslc is part of librxvk.  Usage: embed NAME IN.spv OUT.h */
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: embed NAME IN OUT\n");
		return 2;
	}
	FILE *in = fopen(argv[2], "rb");
	if (!in) {
		perror(argv[2]);
		return 1;
	}
	FILE *out = fopen(argv[3], "w");
	if (!out) {
		perror(argv[3]);
		fclose(in);
		return 1;
	}
	fprintf(out, "/* generated from %s */\nstatic const unsigned int %s[] = {\n", argv[2], argv[1]);
	unsigned char w[4];
	size_t n, words = 0;
	while ((n = fread(w, 1, 4, in)) == 4) {
		fprintf(out, "0x%02x%02x%02x%02xu,%s", w[3], w[2], w[1], w[0], ++words % 6 ? " " : "\n");
	}
	fprintf(out, "\n};\n");
	int bad = n != 0 || ferror(in);
	fclose(in);
	if (fclose(out) != 0 || bad) {
		fprintf(stderr, "embed: %s is not whole 32-bit words\n", argv[2]);
		return 1;
	}
	return 0;
}
